// golden: gpt2.onnx h100 fp16
// 6 launches, 5 distinct kernels
// launch 0: add_k0 grid=[64, 1, 1] block=[128, 1, 1] shared=0 params=[float long long float out:float]
// launch 1: matmul_rows_k0 grid=[64, 1, 1] block=[256, 1, 1] shared=560 params=[float float float by_half out:float]
// launch 2: matmul_rows_k1 grid=[128, 1, 1] block=[256, 1, 1] shared=800 params=[float float out:float]
// launch 3: matmul_rows_k2 grid=[64, 1, 1] block=[256, 1, 1] shared=4176 params=[float by_half float float float by_half by_half by_half out:float out:float]
// launch 4: matmul_rows_k1 grid=[128, 1, 1] block=[256, 1, 1] shared=800 params=[float float out:float]
// launch 5: layernorm_rows_k0 grid=[64, 1, 1] block=[256, 1, 1] shared=3664 params=[float by_half float float float by_half by_half out:float]

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

// ===== matmul_rows_k0 =====
BY_DEVICE void matmul_rows_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const by_half* __restrict__ in3, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem_raw);
  float* const by_st0 = reinterpret_cast<float*>(by_smem_raw + 0);
  float* const by_st1 = reinterpret_cast<float*>(by_smem_raw + 16);
  float* const by_res = reinterpret_cast<float*>(by_smem_raw + 32);
  const int by_row0 = (int)by_block.idx.x * 1;
  const int by_lane = threadIdx.x & 31, by_warp = threadIdx.x >> 5;
  (void)by_lane; (void)by_warp;
  for (int by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    float* const by_part = reinterpret_cast<float*>(by_smem_raw + 544);
    float acc = 0.0f;
    for (int r0 = by_lane + 32 * (by_warp % 2); r0 < 128; r0 += 64) {
      const float v = in0[(i0)*128 + (r0)];
      acc = acc + v;
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    if (by_lane == 0) by_part[by_rl * 2 + by_warp % 2] = acc;
  }
  __syncthreads();
  for (int by_rl = threadIdx.x; by_rl < 1; by_rl += 256) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    const float* const by_part = reinterpret_cast<const float*>(by_smem_raw + 544);
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = by_part[by_rl * 2];
    for (int by_w = 1; by_w < 2; ++by_w) acc = acc + by_part[by_rl * 2 + by_w];
    by_st0[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (int by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    float* const by_part = reinterpret_cast<float*>(by_smem_raw + 544);
    float acc = 0.0f;
    for (int r0 = by_lane + 32 * (by_warp % 2); r0 < 128; r0 += 64) {
      const float t0 = (in0[(i0)*128 + (r0)] - (by_st0[(by_rl)] / 128.0f));
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
  for (int by_rl = threadIdx.x; by_rl < 1; by_rl += 256) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    const float* const by_part = reinterpret_cast<const float*>(by_smem_raw + 544);
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = by_part[by_rl * 2];
    for (int by_w = 1; by_w < 2; ++by_w) acc = acc + by_part[by_rl * 2 + by_w];
    by_st1[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 128; by_lin += 256) {
    const int by_rl = by_lin / 128;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i1 = by_lin % 128;
    by_res[by_lin] = (float)(((((in0[(i0)*128 + (i1)] - (by_st0[(by_rl)] / 128.0f)) * (1.0f / by_sqrt(((by_st1[(by_rl)] / 128.0f) + 9.999999747378752e-06f)))) * in1[(i1)]) + in2[(i1)]));
  }
  __syncthreads();
  for (int by_rl = by_warp / 4; by_rl < 1; by_rl += 2) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    for (int by_col = (by_lane + 32 * (by_warp % 4)); by_col < 384; by_col += 128) {
      int by_crem = by_col;
      const int i1 = by_crem;
      (void)by_crem;
      float acc = 0.0f;
      for (int r0 = 0; r0 < 128; r0 += 1) {
        const float v = (((float)(((float)(by_half)((float)(by_res[(by_rl)*128 + (r0)]))))) * ((float)(((float)in3[(r0)*384 + (i1)]))));
        acc = acc + v;
      }
      out[i0 * 384 + i1 * 1] = (float)(acc);
    }
  }
}
BY_KERNEL void __launch_bounds__(256) matmul_rows_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const by_half* __restrict__ in3, float* __restrict__ out) {
  matmul_rows_k0_body(in0, in1, in2, in3, out, by_this_block());
}

// ===== matmul_rows_k1 =====
BY_DEVICE void matmul_rows_k1_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem_raw);
  float* const by_res0 = reinterpret_cast<float*>(by_smem_raw + 0);
  float* const by_st1 = reinterpret_cast<float*>(by_smem_raw + 256);
  float* const by_st2 = reinterpret_cast<float*>(by_smem_raw + 272);
  float* const by_res3 = reinterpret_cast<float*>(by_smem_raw + 288);
  float* const by_res = reinterpret_cast<float*>(by_smem_raw + 544);
  const int by_row0 = (int)by_block.idx.x * 1;
  const int by_lane = threadIdx.x & 31, by_warp = threadIdx.x >> 5;
  (void)by_lane; (void)by_warp;
  for (int by_lin = threadIdx.x; by_lin < 64; by_lin += 256) {
    const int by_rl = by_lin / 64;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 128) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 64; by_rrem /= 64;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i2 = by_lin % 64;
    float acc = 0.0f;
    for (int r0 = 0; r0 < 64; r0 += 1) {
      const int t0 = ((i0 * (64ll)) + r0);
      const float v = (((float)(((float)(by_half)((float)((in0[(i1)*384 + (t0)] * 0.3535533845424652f)))))) * ((float)(((float)(by_half)((float)((in0[(i2)*384 + ((t0 + (128ll)))] * 0.3535533845424652f)))))));
      acc = acc + v;
    }
    by_res0[by_lin] = (float)((acc + in1[(i1)*64 + (i2)]));
  }
  __syncthreads();
  for (int by_rl = by_warp / 1; by_rl < 1; by_rl += 8) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 128) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 64; by_rrem /= 64;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = (-by_inf_f());
    for (int r0 = by_lane; r0 < 64; r0 += 32) {
      const float v = by_res0[(by_rl)*64 + (r0)];
      acc = by_max(acc, v);
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = by_max(acc, o);
    }
    if (by_lane == 0) by_st1[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (int by_rl = by_warp / 1; by_rl < 1; by_rl += 8) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 128) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 64; by_rrem /= 64;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = 0.0f;
    for (int r0 = by_lane; r0 < 64; r0 += 32) {
      const float v = by_exp((by_res0[(by_rl)*64 + (r0)] - by_st1[(by_rl)]));
      acc = acc + v;
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    if (by_lane == 0) by_st2[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 64; by_lin += 256) {
    const int by_rl = by_lin / 64;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 128) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 64; by_rrem /= 64;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i2 = by_lin % 64;
    by_res3[by_lin] = (float)((by_exp((by_res0[(by_rl)*64 + (i2)] - by_st1[(by_rl)])) / by_st2[(by_rl)]));
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 64; by_lin += 256) {
    const int by_rl = by_lin / 64;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 128) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 64; by_rrem /= 64;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i2 = by_lin % 64;
    by_res[by_lin] = (float)((bool)(by_isnan(by_res3[(by_rl)*64 + (i2)])));
  }
  __syncthreads();
  for (int by_rl = by_warp / 1; by_rl < 1; by_rl += 8) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 128) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 64; by_rrem /= 64;
    const int i2 = by_rrem;
    (void)by_rrem;
    for (int by_col = by_lane; by_col < 64; by_col += 32) {
      int by_crem = by_col;
      const int i3 = by_crem % 64; by_crem /= 64;
      const int i0 = by_crem;
      (void)by_crem;
      float acc = 0.0f;
      for (int r0 = 0; r0 < 64; r0 += 1) {
        const float v = (((float)(((float)(by_half)((float)((by_res[(by_rl)*64 + (r0)] ? 0.0f : by_res3[(by_rl)*64 + (r0)])))))) * ((float)(((float)(by_half)((float)(in0[(r0)*384 + ((((i2 * (64ll)) + i3) + (256ll)))]))))));
        acc = acc + v;
      }
      out[i0 * 8192 + i1 * 128 + i2 * 64 + i3 * 1] = (float)(acc);
    }
  }
}
BY_KERNEL void __launch_bounds__(256) matmul_rows_k1(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out) {
  matmul_rows_k1_body(in0, in1, out, by_this_block());
}

// ===== matmul_rows_k2 =====
BY_DEVICE void matmul_rows_k2_body(const float* __restrict__ in0, const by_half* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const by_half* __restrict__ in5, const by_half* __restrict__ in6, const by_half* __restrict__ in7, float* __restrict__ out0, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem_raw);
  float* const by_res0 = reinterpret_cast<float*>(by_smem_raw + 0);
  float* const by_st1 = reinterpret_cast<float*>(by_smem_raw + 512);
  float* const by_st2 = reinterpret_cast<float*>(by_smem_raw + 528);
  float* const by_res3 = reinterpret_cast<float*>(by_smem_raw + 544);
  float* const by_res4 = reinterpret_cast<float*>(by_smem_raw + 1056);
  float* const by_res5 = reinterpret_cast<float*>(by_smem_raw + 3104);
  float* const by_st6 = reinterpret_cast<float*>(by_smem_raw + 3616);
  float* const by_st7 = reinterpret_cast<float*>(by_smem_raw + 3632);
  float* const by_res = reinterpret_cast<float*>(by_smem_raw + 3648);
  const int by_row0 = (int)by_block.idx.x * 1;
  const int by_lane = threadIdx.x & 31, by_warp = threadIdx.x >> 5;
  (void)by_lane; (void)by_warp;
  for (int by_lin = threadIdx.x; by_lin < 128; by_lin += 256) {
    const int by_rl = by_lin / 128;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i1 = by_lin % 128;
    float acc = 0.0f;
    for (int r0 = 0; r0 < 128; r0 += 1) {
      const float v = (((float)(((float)(by_half)((float)(in0[(i0)*128 + (r0)]))))) * ((float)(((float)in1[(r0)*128 + (i1)]))));
      acc = acc + v;
    }
    by_res0[by_lin] = (float)((acc + in2[(i0)*128 + (i1)]));
  }
  __syncthreads();
  for (int by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    float* const by_part = reinterpret_cast<float*>(by_smem_raw + 4160);
    float acc = 0.0f;
    for (int r0 = by_lane + 32 * (by_warp % 2); r0 < 128; r0 += 64) {
      const float v = by_res0[(by_rl)*128 + (r0)];
      acc = acc + v;
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    if (by_lane == 0) by_part[by_rl * 2 + by_warp % 2] = acc;
  }
  __syncthreads();
  for (int by_rl = threadIdx.x; by_rl < 1; by_rl += 256) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    const float* const by_part = reinterpret_cast<const float*>(by_smem_raw + 4160);
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = by_part[by_rl * 2];
    for (int by_w = 1; by_w < 2; ++by_w) acc = acc + by_part[by_rl * 2 + by_w];
    by_st1[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (int by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    float* const by_part = reinterpret_cast<float*>(by_smem_raw + 4160);
    float acc = 0.0f;
    for (int r0 = by_lane + 32 * (by_warp % 2); r0 < 128; r0 += 64) {
      const float t0 = (by_res0[(by_rl)*128 + (r0)] - (by_st1[(by_rl)] / 128.0f));
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
  for (int by_rl = threadIdx.x; by_rl < 1; by_rl += 256) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    const float* const by_part = reinterpret_cast<const float*>(by_smem_raw + 4160);
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = by_part[by_rl * 2];
    for (int by_w = 1; by_w < 2; ++by_w) acc = acc + by_part[by_rl * 2 + by_w];
    by_st2[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 128; by_lin += 256) {
    const int by_rl = by_lin / 128;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i1 = by_lin % 128;
    by_res3[by_lin] = (float)(((((by_res0[(by_rl)*128 + (i1)] - (by_st1[(by_rl)] / 128.0f)) * (1.0f / by_sqrt(((by_st2[(by_rl)] / 128.0f) + 9.999999747378752e-06f)))) * in3[(i1)]) + in4[(i1)]));
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 512; by_lin += 256) {
    const int by_rl = by_lin / 512;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i1 = by_lin % 512;
    float acc = 0.0f;
    for (int r0 = 0; r0 < 128; r0 += 1) {
      const float v = (((float)(((float)(by_half)((float)(by_res3[(by_rl)*128 + (r0)]))))) * ((float)(((float)in5[(r0)*512 + (i1)]))));
      acc = acc + v;
    }
    by_res4[by_lin] = (float)(((acc * 0.5f) * (by_tanh(((acc + (by_pow(acc, 3.0f) * 0.044714998453855515f)) * 0.7978845834732056f)) + 1.0f)));
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 128; by_lin += 256) {
    const int by_rl = by_lin / 128;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i1 = by_lin % 128;
    float acc = 0.0f;
    for (int r0 = 0; r0 < 512; r0 += 1) {
      const float v = (((float)(((float)(by_half)((float)(by_res4[(by_rl)*512 + (r0)]))))) * ((float)(((float)in6[(r0)*128 + (i1)]))));
      acc = acc + v;
    }
    by_res5[by_lin] = (float)((by_res0[(by_rl)*128 + (i1)] + acc));
    out0[by_row * 128 + i1] = (float)(by_res5[by_lin]);
  }
  __syncthreads();
  for (int by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    float* const by_part = reinterpret_cast<float*>(by_smem_raw + 4160);
    float acc = 0.0f;
    for (int r0 = by_lane + 32 * (by_warp % 2); r0 < 128; r0 += 64) {
      const float v = by_res5[(by_rl)*128 + (r0)];
      acc = acc + v;
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    if (by_lane == 0) by_part[by_rl * 2 + by_warp % 2] = acc;
  }
  __syncthreads();
  for (int by_rl = threadIdx.x; by_rl < 1; by_rl += 256) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    const float* const by_part = reinterpret_cast<const float*>(by_smem_raw + 4160);
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = by_part[by_rl * 2];
    for (int by_w = 1; by_w < 2; ++by_w) acc = acc + by_part[by_rl * 2 + by_w];
    by_st6[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (int by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    float* const by_part = reinterpret_cast<float*>(by_smem_raw + 4160);
    float acc = 0.0f;
    for (int r0 = by_lane + 32 * (by_warp % 2); r0 < 128; r0 += 64) {
      const float t0 = (by_res5[(by_rl)*128 + (r0)] - (by_st6[(by_rl)] / 128.0f));
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
  for (int by_rl = threadIdx.x; by_rl < 1; by_rl += 256) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    const float* const by_part = reinterpret_cast<const float*>(by_smem_raw + 4160);
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = by_part[by_rl * 2];
    for (int by_w = 1; by_w < 2; ++by_w) acc = acc + by_part[by_rl * 2 + by_w];
    by_st7[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 128; by_lin += 256) {
    const int by_rl = by_lin / 128;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i1 = by_lin % 128;
    by_res[by_lin] = (float)(((((by_res5[(by_rl)*128 + (i1)] - (by_st6[(by_rl)] / 128.0f)) * (1.0f / by_sqrt(((by_st7[(by_rl)] / 128.0f) + 9.999999747378752e-06f)))) * in3[(i1)]) + in4[(i1)]));
  }
  __syncthreads();
  for (int by_rl = by_warp / 4; by_rl < 1; by_rl += 2) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    for (int by_col = (by_lane + 32 * (by_warp % 4)); by_col < 384; by_col += 128) {
      int by_crem = by_col;
      const int i1 = by_crem;
      (void)by_crem;
      float acc = 0.0f;
      for (int r0 = 0; r0 < 128; r0 += 1) {
        const float v = (((float)(((float)(by_half)((float)(by_res[(by_rl)*128 + (r0)]))))) * ((float)(((float)in7[(r0)*384 + (i1)]))));
        acc = acc + v;
      }
      out[i0 * 384 + i1 * 1] = (float)(acc);
    }
  }
}
BY_KERNEL void __launch_bounds__(256) matmul_rows_k2(const float* __restrict__ in0, const by_half* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const by_half* __restrict__ in5, const by_half* __restrict__ in6, const by_half* __restrict__ in7, float* __restrict__ out0, float* __restrict__ out) {
  matmul_rows_k2_body(in0, in1, in2, in3, in4, in5, in6, in7, out0, out, by_this_block());
}

// ===== layernorm_rows_k0 =====
BY_DEVICE void layernorm_rows_k0_body(const float* __restrict__ in0, const by_half* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const by_half* __restrict__ in5, const by_half* __restrict__ in6, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem_raw);
  float* const by_res0 = reinterpret_cast<float*>(by_smem_raw + 0);
  float* const by_st1 = reinterpret_cast<float*>(by_smem_raw + 512);
  float* const by_st2 = reinterpret_cast<float*>(by_smem_raw + 528);
  float* const by_res3 = reinterpret_cast<float*>(by_smem_raw + 544);
  float* const by_res4 = reinterpret_cast<float*>(by_smem_raw + 1056);
  float* const by_res = reinterpret_cast<float*>(by_smem_raw + 3104);
  float* const by_st6 = reinterpret_cast<float*>(by_smem_raw + 3616);
  float* const by_st7 = reinterpret_cast<float*>(by_smem_raw + 3632);
  const int by_row0 = (int)by_block.idx.x * 1;
  const int by_lane = threadIdx.x & 31, by_warp = threadIdx.x >> 5;
  (void)by_lane; (void)by_warp;
  for (int by_lin = threadIdx.x; by_lin < 128; by_lin += 256) {
    const int by_rl = by_lin / 128;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i1 = by_lin % 128;
    float acc = 0.0f;
    for (int r0 = 0; r0 < 128; r0 += 1) {
      const float v = (((float)(((float)(by_half)((float)(in0[(i0)*128 + (r0)]))))) * ((float)(((float)in1[(r0)*128 + (i1)]))));
      acc = acc + v;
    }
    by_res0[by_lin] = (float)((acc + in2[(i0)*128 + (i1)]));
  }
  __syncthreads();
  for (int by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    float* const by_part = reinterpret_cast<float*>(by_smem_raw + 3648);
    float acc = 0.0f;
    for (int r0 = by_lane + 32 * (by_warp % 2); r0 < 128; r0 += 64) {
      const float v = by_res0[(by_rl)*128 + (r0)];
      acc = acc + v;
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    if (by_lane == 0) by_part[by_rl * 2 + by_warp % 2] = acc;
  }
  __syncthreads();
  for (int by_rl = threadIdx.x; by_rl < 1; by_rl += 256) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    const float* const by_part = reinterpret_cast<const float*>(by_smem_raw + 3648);
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = by_part[by_rl * 2];
    for (int by_w = 1; by_w < 2; ++by_w) acc = acc + by_part[by_rl * 2 + by_w];
    by_st1[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (int by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    float* const by_part = reinterpret_cast<float*>(by_smem_raw + 3648);
    float acc = 0.0f;
    for (int r0 = by_lane + 32 * (by_warp % 2); r0 < 128; r0 += 64) {
      const float t0 = (by_res0[(by_rl)*128 + (r0)] - (by_st1[(by_rl)] / 128.0f));
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
  for (int by_rl = threadIdx.x; by_rl < 1; by_rl += 256) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    const float* const by_part = reinterpret_cast<const float*>(by_smem_raw + 3648);
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = by_part[by_rl * 2];
    for (int by_w = 1; by_w < 2; ++by_w) acc = acc + by_part[by_rl * 2 + by_w];
    by_st2[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 128; by_lin += 256) {
    const int by_rl = by_lin / 128;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i1 = by_lin % 128;
    by_res3[by_lin] = (float)(((((by_res0[(by_rl)*128 + (i1)] - (by_st1[(by_rl)] / 128.0f)) * (1.0f / by_sqrt(((by_st2[(by_rl)] / 128.0f) + 9.999999747378752e-06f)))) * in3[(i1)]) + in4[(i1)]));
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 512; by_lin += 256) {
    const int by_rl = by_lin / 512;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i1 = by_lin % 512;
    float acc = 0.0f;
    for (int r0 = 0; r0 < 128; r0 += 1) {
      const float v = (((float)(((float)(by_half)((float)(by_res3[(by_rl)*128 + (r0)]))))) * ((float)(((float)in5[(r0)*512 + (i1)]))));
      acc = acc + v;
    }
    by_res4[by_lin] = (float)(((acc * 0.5f) * (by_tanh(((acc + (by_pow(acc, 3.0f) * 0.044714998453855515f)) * 0.7978845834732056f)) + 1.0f)));
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 128; by_lin += 256) {
    const int by_rl = by_lin / 128;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i1 = by_lin % 128;
    float acc = 0.0f;
    for (int r0 = 0; r0 < 512; r0 += 1) {
      const float v = (((float)(((float)(by_half)((float)(by_res4[(by_rl)*512 + (r0)]))))) * ((float)(((float)in6[(r0)*128 + (i1)]))));
      acc = acc + v;
    }
    by_res[by_lin] = (float)((by_res0[(by_rl)*128 + (i1)] + acc));
  }
  __syncthreads();
  for (int by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    float* const by_part = reinterpret_cast<float*>(by_smem_raw + 3648);
    float acc = 0.0f;
    for (int r0 = by_lane + 32 * (by_warp % 2); r0 < 128; r0 += 64) {
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
  for (int by_rl = threadIdx.x; by_rl < 1; by_rl += 256) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    const float* const by_part = reinterpret_cast<const float*>(by_smem_raw + 3648);
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = by_part[by_rl * 2];
    for (int by_w = 1; by_w < 2; ++by_w) acc = acc + by_part[by_rl * 2 + by_w];
    by_st6[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (int by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    float* const by_part = reinterpret_cast<float*>(by_smem_raw + 3648);
    float acc = 0.0f;
    for (int r0 = by_lane + 32 * (by_warp % 2); r0 < 128; r0 += 64) {
      const float t0 = (by_res[(by_rl)*128 + (r0)] - (by_st6[(by_rl)] / 128.0f));
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
  for (int by_rl = threadIdx.x; by_rl < 1; by_rl += 256) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    const float* const by_part = reinterpret_cast<const float*>(by_smem_raw + 3648);
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = by_part[by_rl * 2];
    for (int by_w = 1; by_w < 2; ++by_w) acc = acc + by_part[by_rl * 2 + by_w];
    by_st7[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (int by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i1 = by_rrem;
    (void)by_rrem;
    for (int by_col = (by_lane + 32 * (by_warp % 2)); by_col < 128; by_col += 64) {
      int by_crem = by_col;
      const int i2 = by_crem % 128; by_crem /= 128;
      const int i0 = by_crem;
      (void)by_crem;
      out[i0 * 8192 + i1 * 128 + i2 * 1] = (float)(((((by_res[(by_rl)*128 + (i2)] - (by_st6[(by_rl)] / 128.0f)) * (1.0f / by_sqrt(((by_st7[(by_rl)] / 128.0f) + 9.999999747378752e-06f)))) * in3[(i2)]) + in4[(i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(256) layernorm_rows_k0(const float* __restrict__ in0, const by_half* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const by_half* __restrict__ in5, const by_half* __restrict__ in6, float* __restrict__ out) {
  layernorm_rows_k0_body(in0, in1, in2, in3, in4, in5, in6, out, by_this_block());
}
