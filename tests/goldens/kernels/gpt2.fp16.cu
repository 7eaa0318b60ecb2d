// golden: gpt2.onnx h100 fp16
// 14 launches, 9 distinct kernels
// launch 0: add_k0 grid=[64, 1, 1] block=[128, 1, 1] shared=0 params=[float long long float out:float]
// launch 1: layernorm_rows_k0 grid=[64, 1, 1] block=[256, 1, 1] shared=48 params=[float float float out:float]
// launch 2: matmul_k0 grid=[12, 1, 1] block=[256, 1, 1] shared=24576 params=[float by_half out:float]
// launch 3: mul_k0 grid=[64, 1, 1] block=[128, 1, 1] shared=0 params=[float out:float]
// launch 4: matmul_rows_k0 grid=[128, 1, 1] block=[256, 1, 1] shared=288 params=[float float float out:float]
// launch 5: layernorm_rows_k1 grid=[64, 1, 1] block=[256, 1, 1] shared=560 params=[float by_half float float float out:float out:float]
// launch 6: matmul_k1 grid=[16, 1, 1] block=[256, 1, 1] shared=24576 params=[float by_half out:float]
// launch 7: layernorm_rows_k2 grid=[64, 1, 1] block=[256, 1, 1] shared=560 params=[float by_half float float float out:float out:float]
// launch 8: matmul_k0 grid=[12, 1, 1] block=[256, 1, 1] shared=24576 params=[float by_half out:float]
// launch 9: mul_k0 grid=[64, 1, 1] block=[128, 1, 1] shared=0 params=[float out:float]
// launch 10: matmul_rows_k0 grid=[128, 1, 1] block=[256, 1, 1] shared=288 params=[float float float out:float]
// launch 11: layernorm_rows_k1 grid=[64, 1, 1] block=[256, 1, 1] shared=560 params=[float by_half float float float out:float out:float]
// launch 12: matmul_k1 grid=[16, 1, 1] block=[256, 1, 1] shared=24576 params=[float by_half out:float]
// launch 13: layernorm_rows_k3 grid=[64, 1, 1] block=[256, 1, 1] shared=560 params=[float by_half float float float out:float]

// ===== add_k0 =====
BY_DEVICE void add_k0_body(const float* __restrict__ in0, const long long* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 128 + threadIdx.x; base < 8192; base += (int)by_block.grid.x * 128) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 128;
      if (lin >= 8192) break;
      const int i0 = 0;
      int by_rem = lin;
      const int i2 = by_rem % 128; by_rem /= 128;
      const int i1 = by_rem;
      const long long t0 = in1[(i0)*64 + (i1)];
      out[(i1)*128 + (i2)] = (float)((in0[(((t0 < (0ll)) ? (t0 + (1000ll)) : t0))*128 + (i2)] + in2[(i0)*8192 + (i1)*128 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(128) add_k0(const float* __restrict__ in0, const long long* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  add_k0_body(in0, in1, in2, out, by_this_block());
}

// ===== layernorm_rows_k0 =====
BY_DEVICE void layernorm_rows_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem_raw);
  float* const by_st0 = reinterpret_cast<float*>(by_smem_raw + 0);
  float* const by_st1 = reinterpret_cast<float*>(by_smem_raw + 16);
  const long long by_row0 = (long long)by_block.idx.x * 1;
  const int by_lane = threadIdx.x & 31, by_warp = threadIdx.x >> 5;
  (void)by_lane; (void)by_warp;
  for (long long by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    float* const by_part = reinterpret_cast<float*>(by_smem_raw + 32);
    float acc = 0.0f;
    for (long long r0 = by_lane + 32 * (by_warp % 2); r0 < 128; r0 += 64) {
      const float v = in0[(i0)*8192 + (i1)*128 + (r0)];
      acc = acc + v;
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    if (by_lane == 0) by_part[by_rl * 2 + by_warp % 2] = acc;
  }
  __syncthreads();
  for (long long by_rl = threadIdx.x; by_rl < 1; by_rl += 256) {
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    const float* const by_part = reinterpret_cast<const float*>(by_smem_raw + 32);
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    float acc = by_part[by_rl * 2];
    for (int by_w = 1; by_w < 2; ++by_w) acc = acc + by_part[by_rl * 2 + by_w];
    by_st0[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (long long by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    float* const by_part = reinterpret_cast<float*>(by_smem_raw + 32);
    float acc = 0.0f;
    for (long long r0 = by_lane + 32 * (by_warp % 2); r0 < 128; r0 += 64) {
      const float t0 = (in0[(i0)*8192 + (i1)*128 + (r0)] - (by_st0[(by_rl)] / 128.0f));
      const float v = (t0 * t0);
      acc = acc + v;
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    if (by_lane == 0) by_part[by_rl * 2 + by_warp % 2] = acc;
  }
  __syncthreads();
  for (long long by_rl = threadIdx.x; by_rl < 1; by_rl += 256) {
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    const float* const by_part = reinterpret_cast<const float*>(by_smem_raw + 32);
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    float acc = by_part[by_rl * 2];
    for (int by_w = 1; by_w < 2; ++by_w) acc = acc + by_part[by_rl * 2 + by_w];
    by_st1[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (long long by_lin = threadIdx.x; by_lin < 128; by_lin += 256) {
    const long long by_rl = by_lin / 128;
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    long long by_crem = (by_lin % 128);
    const long long i2 = by_crem;
    (void)by_crem;
    out[i0 * 8192 + i1 * 128 + i2 * 1] = (float)(((((in0[(i0)*8192 + (i1)*128 + (i2)] - (by_st0[(by_rl)] / 128.0f)) * (1.0f / by_sqrt(((by_st1[(by_rl)] / 128.0f) + 9.999999747378752e-06f)))) * in1[(i2)]) + in2[(i2)]));
  }
}
BY_KERNEL void __launch_bounds__(256) layernorm_rows_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  layernorm_rows_k0_body(in0, in1, in2, out, by_this_block());
}

// ===== matmul_k0 =====
BY_DEVICE void matmul_k0_body(const float* __restrict__ in0, const by_half* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  unsigned char* const by_sa = by_smem;
  unsigned char* const by_sb = by_smem + 8192;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int by_g = lane >> 2, by_t = lane & 3;
  const int by_lr = (lane & 7) + 8 * ((lane >> 3) & 1), by_lc = 8 * (lane >> 4), by_lh = 8 * ((lane >> 3) & 1);
  const int wm0 = (warp / 4) * 16, wn0 = (warp % 4) * 16;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 6) * 64; by_blk /= 6;
  const int by_m0 = (by_blk % 2) * 32; by_blk /= 2;
  (void)by_lr; (void)by_lc; (void)by_lh; (void)by_g; (void)by_t;
  float by_acc[1][2][4];
  #pragma unroll
  for (int mi = 0; mi < 1; ++mi)
    #pragma unroll
    for (int ni = 0; ni < 2; ++ni)
      #pragma unroll
      for (int q = 0; q < 4; ++q) by_acc[mi][ni][q] = 0.0f;
  const int kt_begin = 0;
  const int nloc = 2;
  auto by_load = [&](int stage, int kt) {
    const int k0 = (int)kt * 64;
    {  // operand A: vector, rows x k
      unsigned char* const dst = by_sa + stage * 4096;
      #pragma unroll
      for (int c = tid; c < 512; c += 256) {
        const int o = c / 16, j = c % 16;
        const int gr = by_m0 + o;
        const int gk = k0 + j * 4;
        float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        const float* const src = in0;
        v = by_ld_global_v4(src + (gr)*128 + (gk));
        *reinterpret_cast<uint2*>(dst + by_swizzle_128b(o, j * 8)) = make_uint2(by_pack_half2(v.x, v.y), by_pack_half2(v.z, v.w));
      }
    }
    {  // operand B: async, k x rows
      unsigned char* const dst = by_sb + stage * 8192;
      #pragma unroll
      for (int c = tid; c < 512; c += 256) {
        const int o = c / 8, j = c % 8;
        const int gk = k0 + o;
        const int gr = by_n0 + j * 8;
        const int nb = true ? 16 : 0;
        by_cp_async_16_zfill(dst + by_swizzle_128b(o, j * 16), nb ? (const void*)(in1 + (gk)*384 + (gr)) : (const void*)in1, nb);
      }
    }
  };
  for (int s = 0; s < 1; ++s) {
    if (s < nloc) by_load(s, kt_begin + s);
    by_cp_async_commit();
  }
  for (int i = 0; i < nloc; ++i) {
    by_cp_async_wait<0>();
    __syncthreads();
    if (i + 1 < nloc) by_load((i + 1) % 2, kt_begin + i + 1);
    by_cp_async_commit();
    {
      const unsigned char* const as = by_sa + (i % 2) * 4096;
      const unsigned char* const bs = by_sb + (i % 2) * 8192;
      #pragma unroll
      for (int kk = 0; kk < 64; kk += 16) {
        unsigned a[1][4], b[2][2];
        #pragma unroll
        for (int mi = 0; mi < 1; ++mi)
          by_ldmatrix_x4(a[mi], as + by_swizzle_128b(wm0 + mi * 16 + by_lr, (kk + by_lc) * 2));
        #pragma unroll
        for (int nj = 0; nj < 1; ++nj)
          by_ldmatrix_x4_trans(&b[2 * nj][0], bs + by_swizzle_128b(kk + by_lh + (lane & 7), (wn0 + nj * 16 + by_lc) * 2));
        #pragma unroll
        for (int mi = 0; mi < 1; ++mi)
          #pragma unroll
          for (int ni = 0; ni < 2; ++ni)
            by_mma_m16n8k16_f16_f32(by_acc[mi][ni], a[mi], b[ni], by_acc[mi][ni]);
      }
    }
  }
  by_cp_async_wait_all();
  #pragma unroll
  for (int mi = 0; mi < 1; ++mi)
    #pragma unroll
    for (int ni = 0; ni < 2; ++ni)
      #pragma unroll
      for (int q = 0; q < 4; ++q) {
        const int gm = by_m0 + wm0 + mi * 16 + by_g + (q >> 1) * 8;
        const int gn = by_n0 + wn0 + ni * 8 + 2 * by_t + (q & 1);
        const int i0 = gm;
        const int i1 = gn;
        const float acc = by_acc[mi][ni][q];
        out[(i0)*384 + (i1)] = (float)(acc);
      }
}
BY_KERNEL void __launch_bounds__(256) matmul_k0(const float* __restrict__ in0, const by_half* __restrict__ in1, float* __restrict__ out) {
  matmul_k0_body(in0, in1, out, by_this_block());
}

// ===== mul_k0 =====
BY_DEVICE void mul_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 128 + threadIdx.x; base < 8192; base += (int)by_block.grid.x * 128) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 128;
      if (lin >= 8192) break;
      const int i0 = 0;
      int by_rem = lin;
      const int i3 = by_rem % 64; by_rem /= 64;
      const int i2 = by_rem % 64; by_rem /= 64;
      const int i1 = by_rem;
      out[(i1)*4096 + (i2)*64 + (i3)] = (float)((in0[(i3)*384 + ((((i1 * (64ll)) + i2) + (128ll)))] * 0.3535533845424652f));
    }
  }
}
BY_KERNEL void __launch_bounds__(128) mul_k0(const float* __restrict__ in0, float* __restrict__ out) {
  mul_k0_body(in0, out, by_this_block());
}

// ===== matmul_rows_k0 =====
BY_DEVICE void matmul_rows_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem_raw);
  float* const by_res = reinterpret_cast<float*>(by_smem_raw + 0);
  float* const by_st1 = reinterpret_cast<float*>(by_smem_raw + 256);
  float* const by_st2 = reinterpret_cast<float*>(by_smem_raw + 272);
  const long long by_row0 = (long long)by_block.idx.x * 1;
  const int by_lane = threadIdx.x & 31, by_warp = threadIdx.x >> 5;
  (void)by_lane; (void)by_warp;
  for (long long by_lin = threadIdx.x; by_lin < 64; by_lin += 256) {
    const long long by_rl = by_lin / 64;
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 128) break;
    long long by_rrem = by_row;
    const long long i2 = by_rrem % 64; by_rrem /= 64;
    const long long i1 = by_rrem % 2; by_rrem /= 2;
    const long long i0 = by_rrem;
    (void)by_rrem;
    const long long i3 = by_lin % 64;
    float acc = 0.0f;
    for (long long r0 = 0; r0 < 64; r0 += 1) {
      const float v = (((float)(((float)(by_half)((float)((in0[(i2)*384 + (((i1 * (64ll)) + r0))] * 0.3535533845424652f)))))) * ((float)(((float)(by_half)((float)(in1[(i0)*8192 + (i1)*4096 + (r0)*64 + (i3)]))))));
      acc = acc + v;
    }
    by_res[by_lin] = (float)((acc + in2[(i0)*4096 + (i2)*64 + (i3)]));
  }
  __syncthreads();
  for (long long by_rl = by_warp / 1; by_rl < 1; by_rl += 8) {
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 128) break;
    long long by_rrem = by_row;
    const long long i2 = by_rrem % 64; by_rrem /= 64;
    const long long i1 = by_rrem % 2; by_rrem /= 2;
    const long long i0 = by_rrem;
    (void)by_rrem;
    float acc = (-by_inf_f());
    for (long long r0 = by_lane; r0 < 64; r0 += 32) {
      const float v = by_res[(by_rl)*64 + (r0)];
      acc = by_max(acc, v);
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = by_max(acc, o);
    }
    if (by_lane == 0) by_st1[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (long long by_rl = by_warp / 1; by_rl < 1; by_rl += 8) {
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 128) break;
    long long by_rrem = by_row;
    const long long i2 = by_rrem % 64; by_rrem /= 64;
    const long long i1 = by_rrem % 2; by_rrem /= 2;
    const long long i0 = by_rrem;
    (void)by_rrem;
    float acc = 0.0f;
    for (long long r0 = by_lane; r0 < 64; r0 += 32) {
      const float v = by_exp((by_res[(by_rl)*64 + (r0)] - by_st1[(by_rl)]));
      acc = acc + v;
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    if (by_lane == 0) by_st2[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (long long by_lin = threadIdx.x; by_lin < 64; by_lin += 256) {
    const long long by_rl = by_lin / 64;
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 128) break;
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i2 = by_rrem % 2; by_rrem /= 2;
    const long long i0 = by_rrem;
    (void)by_rrem;
    long long by_crem = (by_lin % 64);
    const long long i3 = by_crem;
    (void)by_crem;
    float acc = 0.0f;
    for (long long r0 = 0; r0 < 64; r0 += 1) {
      const float t0 = (by_exp((by_res[(by_rl)*64 + (r0)] - by_st1[(by_rl)])) / by_st2[(by_rl)]);
      const float v = (((float)(((float)(by_half)((float)((by_isnan(t0) ? 0.0f : t0)))))) * ((float)(((float)(by_half)((float)(in0[(r0)*384 + ((((i2 * (64ll)) + i3) + (256ll)))]))))));
      acc = acc + v;
    }
    out[i0 * 8192 + i1 * 128 + i2 * 64 + i3 * 1] = (float)(acc);
  }
}
BY_KERNEL void __launch_bounds__(256) matmul_rows_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  matmul_rows_k0_body(in0, in1, in2, out, by_this_block());
}

// ===== layernorm_rows_k1 =====
BY_DEVICE void layernorm_rows_k1_body(const float* __restrict__ in0, const by_half* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ out0, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem_raw);
  float* const by_res = reinterpret_cast<float*>(by_smem_raw + 0);
  float* const by_st1 = reinterpret_cast<float*>(by_smem_raw + 512);
  float* const by_st2 = reinterpret_cast<float*>(by_smem_raw + 528);
  const long long by_row0 = (long long)by_block.idx.x * 1;
  const int by_lane = threadIdx.x & 31, by_warp = threadIdx.x >> 5;
  (void)by_lane; (void)by_warp;
  for (long long by_lin = threadIdx.x; by_lin < 128; by_lin += 256) {
    const long long by_rl = by_lin / 128;
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    const long long i2 = by_lin % 128;
    float acc = 0.0f;
    for (long long r0 = 0; r0 < 128; r0 += 1) {
      const float v = (((float)(((float)(by_half)((float)(in0[(i1)*128 + (r0)]))))) * ((float)(((float)in1[(r0)*128 + (i2)]))));
      acc = acc + v;
    }
    by_res[by_lin] = (float)((acc + in2[(i0)*8192 + (i1)*128 + (i2)]));
    out0[by_row * 128 + i2] = (float)(by_res[by_lin]);
  }
  __syncthreads();
  for (long long by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    float* const by_part = reinterpret_cast<float*>(by_smem_raw + 544);
    float acc = 0.0f;
    for (long long r0 = by_lane + 32 * (by_warp % 2); r0 < 128; r0 += 64) {
      const float v = by_res[(by_rl)*128 + (r0)];
      acc = acc + v;
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    if (by_lane == 0) by_part[by_rl * 2 + by_warp % 2] = acc;
  }
  __syncthreads();
  for (long long by_rl = threadIdx.x; by_rl < 1; by_rl += 256) {
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    const float* const by_part = reinterpret_cast<const float*>(by_smem_raw + 544);
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    float acc = by_part[by_rl * 2];
    for (int by_w = 1; by_w < 2; ++by_w) acc = acc + by_part[by_rl * 2 + by_w];
    by_st1[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (long long by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    float* const by_part = reinterpret_cast<float*>(by_smem_raw + 544);
    float acc = 0.0f;
    for (long long r0 = by_lane + 32 * (by_warp % 2); r0 < 128; r0 += 64) {
      const float t0 = (by_res[(by_rl)*128 + (r0)] - (by_st1[(by_rl)] / 128.0f));
      const float v = (t0 * t0);
      acc = acc + v;
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    if (by_lane == 0) by_part[by_rl * 2 + by_warp % 2] = acc;
  }
  __syncthreads();
  for (long long by_rl = threadIdx.x; by_rl < 1; by_rl += 256) {
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    const float* const by_part = reinterpret_cast<const float*>(by_smem_raw + 544);
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    float acc = by_part[by_rl * 2];
    for (int by_w = 1; by_w < 2; ++by_w) acc = acc + by_part[by_rl * 2 + by_w];
    by_st2[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (long long by_lin = threadIdx.x; by_lin < 128; by_lin += 256) {
    const long long by_rl = by_lin / 128;
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    long long by_crem = (by_lin % 128);
    const long long i2 = by_crem;
    (void)by_crem;
    out[i0 * 8192 + i1 * 128 + i2 * 1] = (float)(((((by_res[(by_rl)*128 + (i2)] - (by_st1[(by_rl)] / 128.0f)) * (1.0f / by_sqrt(((by_st2[(by_rl)] / 128.0f) + 9.999999747378752e-06f)))) * in3[(i2)]) + in4[(i2)]));
  }
}
BY_KERNEL void __launch_bounds__(256) layernorm_rows_k1(const float* __restrict__ in0, const by_half* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ out0, float* __restrict__ out) {
  layernorm_rows_k1_body(in0, in1, in2, in3, in4, out0, out, by_this_block());
}

// ===== matmul_k1 =====
BY_DEVICE void matmul_k1_body(const float* __restrict__ in0, const by_half* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  unsigned char* const by_sa = by_smem;
  unsigned char* const by_sb = by_smem + 8192;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int by_g = lane >> 2, by_t = lane & 3;
  const int by_lr = (lane & 7) + 8 * ((lane >> 3) & 1), by_lc = 8 * (lane >> 4), by_lh = 8 * ((lane >> 3) & 1);
  const int wm0 = (warp / 4) * 16, wn0 = (warp % 4) * 16;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 8) * 64; by_blk /= 8;
  const int by_m0 = (by_blk % 2) * 32; by_blk /= 2;
  const int i0 = 0;
  (void)by_lr; (void)by_lc; (void)by_lh; (void)by_g; (void)by_t;
  float by_acc[1][2][4];
  #pragma unroll
  for (int mi = 0; mi < 1; ++mi)
    #pragma unroll
    for (int ni = 0; ni < 2; ++ni)
      #pragma unroll
      for (int q = 0; q < 4; ++q) by_acc[mi][ni][q] = 0.0f;
  const int kt_begin = 0;
  const int nloc = 2;
  auto by_load = [&](int stage, int kt) {
    const int k0 = (int)kt * 64;
    {  // operand A: vector, rows x k
      unsigned char* const dst = by_sa + stage * 4096;
      #pragma unroll
      for (int c = tid; c < 512; c += 256) {
        const int o = c / 16, j = c % 16;
        const int gr = by_m0 + o;
        const int gk = k0 + j * 4;
        float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        const float* const src = in0;
        v = by_ld_global_v4(src + (gr)*128 + (gk));
        *reinterpret_cast<uint2*>(dst + by_swizzle_128b(o, j * 8)) = make_uint2(by_pack_half2(v.x, v.y), by_pack_half2(v.z, v.w));
      }
    }
    {  // operand B: async, k x rows
      unsigned char* const dst = by_sb + stage * 8192;
      #pragma unroll
      for (int c = tid; c < 512; c += 256) {
        const int o = c / 8, j = c % 8;
        const int gk = k0 + o;
        const int gr = by_n0 + j * 8;
        const int nb = true ? 16 : 0;
        by_cp_async_16_zfill(dst + by_swizzle_128b(o, j * 16), nb ? (const void*)(in1 + (gk)*512 + (gr)) : (const void*)in1, nb);
      }
    }
  };
  for (int s = 0; s < 1; ++s) {
    if (s < nloc) by_load(s, kt_begin + s);
    by_cp_async_commit();
  }
  for (int i = 0; i < nloc; ++i) {
    by_cp_async_wait<0>();
    __syncthreads();
    if (i + 1 < nloc) by_load((i + 1) % 2, kt_begin + i + 1);
    by_cp_async_commit();
    {
      const unsigned char* const as = by_sa + (i % 2) * 4096;
      const unsigned char* const bs = by_sb + (i % 2) * 8192;
      #pragma unroll
      for (int kk = 0; kk < 64; kk += 16) {
        unsigned a[1][4], b[2][2];
        #pragma unroll
        for (int mi = 0; mi < 1; ++mi)
          by_ldmatrix_x4(a[mi], as + by_swizzle_128b(wm0 + mi * 16 + by_lr, (kk + by_lc) * 2));
        #pragma unroll
        for (int nj = 0; nj < 1; ++nj)
          by_ldmatrix_x4_trans(&b[2 * nj][0], bs + by_swizzle_128b(kk + by_lh + (lane & 7), (wn0 + nj * 16 + by_lc) * 2));
        #pragma unroll
        for (int mi = 0; mi < 1; ++mi)
          #pragma unroll
          for (int ni = 0; ni < 2; ++ni)
            by_mma_m16n8k16_f16_f32(by_acc[mi][ni], a[mi], b[ni], by_acc[mi][ni]);
      }
    }
  }
  by_cp_async_wait_all();
  #pragma unroll
  for (int mi = 0; mi < 1; ++mi)
    #pragma unroll
    for (int ni = 0; ni < 2; ++ni)
      #pragma unroll
      for (int q = 0; q < 4; ++q) {
        const int gm = by_m0 + wm0 + mi * 16 + by_g + (q >> 1) * 8;
        const int gn = by_n0 + wn0 + ni * 8 + 2 * by_t + (q & 1);
        const int i1 = gm;
        const int i2 = gn;
        const float acc = by_acc[mi][ni][q];
        out[(i1)*512 + (i2)] = (float)(((acc * 0.5f) * (by_tanh(((acc + (by_pow(acc, 3.0f) * 0.044714998453855515f)) * 0.7978845834732056f)) + 1.0f)));
      }
}
BY_KERNEL void __launch_bounds__(256) matmul_k1(const float* __restrict__ in0, const by_half* __restrict__ in1, float* __restrict__ out) {
  matmul_k1_body(in0, in1, out, by_this_block());
}

// ===== layernorm_rows_k2 =====
BY_DEVICE void layernorm_rows_k2_body(const float* __restrict__ in0, const by_half* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ out0, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem_raw);
  float* const by_res = reinterpret_cast<float*>(by_smem_raw + 0);
  float* const by_st1 = reinterpret_cast<float*>(by_smem_raw + 512);
  float* const by_st2 = reinterpret_cast<float*>(by_smem_raw + 528);
  const long long by_row0 = (long long)by_block.idx.x * 1;
  const int by_lane = threadIdx.x & 31, by_warp = threadIdx.x >> 5;
  (void)by_lane; (void)by_warp;
  for (long long by_lin = threadIdx.x; by_lin < 128; by_lin += 256) {
    const long long by_rl = by_lin / 128;
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    const long long i2 = by_lin % 128;
    float acc = 0.0f;
    for (long long r0 = 0; r0 < 512; r0 += 1) {
      const float v = (((float)(((float)(by_half)((float)(in0[(i1)*512 + (r0)]))))) * ((float)(((float)in1[(r0)*128 + (i2)]))));
      acc = acc + v;
    }
    by_res[by_lin] = (float)((in2[(i0)*8192 + (i1)*128 + (i2)] + acc));
    out0[by_row * 128 + i2] = (float)(by_res[by_lin]);
  }
  __syncthreads();
  for (long long by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    float* const by_part = reinterpret_cast<float*>(by_smem_raw + 544);
    float acc = 0.0f;
    for (long long r0 = by_lane + 32 * (by_warp % 2); r0 < 128; r0 += 64) {
      const float v = by_res[(by_rl)*128 + (r0)];
      acc = acc + v;
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    if (by_lane == 0) by_part[by_rl * 2 + by_warp % 2] = acc;
  }
  __syncthreads();
  for (long long by_rl = threadIdx.x; by_rl < 1; by_rl += 256) {
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    const float* const by_part = reinterpret_cast<const float*>(by_smem_raw + 544);
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    float acc = by_part[by_rl * 2];
    for (int by_w = 1; by_w < 2; ++by_w) acc = acc + by_part[by_rl * 2 + by_w];
    by_st1[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (long long by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    float* const by_part = reinterpret_cast<float*>(by_smem_raw + 544);
    float acc = 0.0f;
    for (long long r0 = by_lane + 32 * (by_warp % 2); r0 < 128; r0 += 64) {
      const float t0 = (by_res[(by_rl)*128 + (r0)] - (by_st1[(by_rl)] / 128.0f));
      const float v = (t0 * t0);
      acc = acc + v;
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    if (by_lane == 0) by_part[by_rl * 2 + by_warp % 2] = acc;
  }
  __syncthreads();
  for (long long by_rl = threadIdx.x; by_rl < 1; by_rl += 256) {
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    const float* const by_part = reinterpret_cast<const float*>(by_smem_raw + 544);
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    float acc = by_part[by_rl * 2];
    for (int by_w = 1; by_w < 2; ++by_w) acc = acc + by_part[by_rl * 2 + by_w];
    by_st2[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (long long by_lin = threadIdx.x; by_lin < 128; by_lin += 256) {
    const long long by_rl = by_lin / 128;
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    long long by_crem = (by_lin % 128);
    const long long i2 = by_crem;
    (void)by_crem;
    out[i0 * 8192 + i1 * 128 + i2 * 1] = (float)(((((by_res[(by_rl)*128 + (i2)] - (by_st1[(by_rl)] / 128.0f)) * (1.0f / by_sqrt(((by_st2[(by_rl)] / 128.0f) + 9.999999747378752e-06f)))) * in3[(i2)]) + in4[(i2)]));
  }
}
BY_KERNEL void __launch_bounds__(256) layernorm_rows_k2(const float* __restrict__ in0, const by_half* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ out0, float* __restrict__ out) {
  layernorm_rows_k2_body(in0, in1, in2, in3, in4, out0, out, by_this_block());
}

// ===== layernorm_rows_k3 =====
BY_DEVICE void layernorm_rows_k3_body(const float* __restrict__ in0, const by_half* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem_raw);
  float* const by_res = reinterpret_cast<float*>(by_smem_raw + 0);
  float* const by_st1 = reinterpret_cast<float*>(by_smem_raw + 512);
  float* const by_st2 = reinterpret_cast<float*>(by_smem_raw + 528);
  const long long by_row0 = (long long)by_block.idx.x * 1;
  const int by_lane = threadIdx.x & 31, by_warp = threadIdx.x >> 5;
  (void)by_lane; (void)by_warp;
  for (long long by_lin = threadIdx.x; by_lin < 128; by_lin += 256) {
    const long long by_rl = by_lin / 128;
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    const long long i2 = by_lin % 128;
    float acc = 0.0f;
    for (long long r0 = 0; r0 < 512; r0 += 1) {
      const float v = (((float)(((float)(by_half)((float)(in0[(i1)*512 + (r0)]))))) * ((float)(((float)in1[(r0)*128 + (i2)]))));
      acc = acc + v;
    }
    by_res[by_lin] = (float)((in2[(i0)*8192 + (i1)*128 + (i2)] + acc));
  }
  __syncthreads();
  for (long long by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    float* const by_part = reinterpret_cast<float*>(by_smem_raw + 544);
    float acc = 0.0f;
    for (long long r0 = by_lane + 32 * (by_warp % 2); r0 < 128; r0 += 64) {
      const float v = by_res[(by_rl)*128 + (r0)];
      acc = acc + v;
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    if (by_lane == 0) by_part[by_rl * 2 + by_warp % 2] = acc;
  }
  __syncthreads();
  for (long long by_rl = threadIdx.x; by_rl < 1; by_rl += 256) {
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    const float* const by_part = reinterpret_cast<const float*>(by_smem_raw + 544);
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    float acc = by_part[by_rl * 2];
    for (int by_w = 1; by_w < 2; ++by_w) acc = acc + by_part[by_rl * 2 + by_w];
    by_st1[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (long long by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    float* const by_part = reinterpret_cast<float*>(by_smem_raw + 544);
    float acc = 0.0f;
    for (long long r0 = by_lane + 32 * (by_warp % 2); r0 < 128; r0 += 64) {
      const float t0 = (by_res[(by_rl)*128 + (r0)] - (by_st1[(by_rl)] / 128.0f));
      const float v = (t0 * t0);
      acc = acc + v;
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    if (by_lane == 0) by_part[by_rl * 2 + by_warp % 2] = acc;
  }
  __syncthreads();
  for (long long by_rl = threadIdx.x; by_rl < 1; by_rl += 256) {
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    const float* const by_part = reinterpret_cast<const float*>(by_smem_raw + 544);
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    float acc = by_part[by_rl * 2];
    for (int by_w = 1; by_w < 2; ++by_w) acc = acc + by_part[by_rl * 2 + by_w];
    by_st2[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (long long by_lin = threadIdx.x; by_lin < 128; by_lin += 256) {
    const long long by_rl = by_lin / 128;
    const long long by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    long long by_rrem = by_row;
    const long long i1 = by_rrem % 64; by_rrem /= 64;
    const long long i0 = by_rrem;
    (void)by_rrem;
    long long by_crem = (by_lin % 128);
    const long long i2 = by_crem;
    (void)by_crem;
    out[i0 * 8192 + i1 * 128 + i2 * 1] = (float)(((((by_res[(by_rl)*128 + (i2)] - (by_st1[(by_rl)] / 128.0f)) * (1.0f / by_sqrt(((by_st2[(by_rl)] / 128.0f) + 9.999999747378752e-06f)))) * in3[(i2)]) + in4[(i2)]));
  }
}
BY_KERNEL void __launch_bounds__(256) layernorm_rows_k3(const float* __restrict__ in0, const by_half* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ out) {
  layernorm_rows_k3_body(in0, in1, in2, in3, in4, out, by_this_block());
}
