// golden: vit.onnx h100 fp32
// 9 launches, 7 distinct kernels
// launch 0: conv_k0 grid=[256, 1, 1] block=[64, 1, 1] shared=1664 params=[float float out:float out:float]
// launch 1: add_k0 grid=[4, 1, 1] block=[128, 1, 1] shared=4224 params=[float float float out:float]
// launch 2: layernorm_regrows_k0 grid=[17, 1, 1] block=[32, 1, 1] shared=0 params=[float float float out:float]
// launch 3: colaunch_k0 grid=[448, 1, 1] block=[32, 1, 1] shared=896 params=[float float float out:float out:float float float float out:float out:float]
// launch 4: matmul_rows_k0 grid=[34, 1, 1] block=[256, 1, 1] shared=448 params=[float float float float float float out:float]
// launch 5: layernorm_rows_k0 grid=[17, 1, 1] block=[256, 1, 1] shared=3664 params=[float float float float float float float float out:float out:float]
// launch 6: colaunch_k0 grid=[448, 1, 1] block=[32, 1, 1] shared=896 params=[float float float out:float out:float float float float out:float out:float]
// launch 7: matmul_rows_k0 grid=[34, 1, 1] block=[256, 1, 1] shared=448 params=[float float float float float float out:float]
// launch 8: layernorm_rows_k1 grid=[17, 1, 1] block=[256, 1, 1] shared=3664 params=[float float float float float float float float out:float]

// ===== conv_k0 =====
BY_DEVICE void conv_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 288;
  const int tid = threadIdx.x;
  const int tx = tid % 4;
  const int ty = tid / 4;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 2) * 8; by_blk /= 2;
  const int by_m0 = (by_blk % 8) * 16; by_blk /= 8;
  const int by_ks = (int)(by_blk % 16); by_blk /= 16;
  const unsigned int by_tile = by_block.idx.x % 16u + by_block.idx.x / 256u * 16u;
  const int i0 = 0;
  float by_acc[1][2];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 2; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 3;
  const int nloc = 48 - kt_begin < 3 ? 48 - kt_begin : 3;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 256; e += 64) {
      const int kk = e % 16; const int rr = e / 16;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 16 + kk;
      float v = 0;
      {
        const int i1 = gr;
        int by_rk = gk;
        const int r2 = by_rk % 16; by_rk /= 16;
        const int r1 = by_rk % 16; by_rk /= 16;
        const int r0 = by_rk;
        v = in1[(i1)*768 + (r0)*256 + (r1)*16 + (r2)];
      }
      by_as[kk * 18 + rr] = v;
    }
    for (int e = tid; e < 128; e += 64) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 16 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 4; by_rm /= 4;
        const int i2 = by_rm;
        int by_rk = gk;
        const int r2 = by_rk % 16; by_rk /= 16;
        const int r1 = by_rk % 16; by_rk /= 16;
        const int r0 = by_rk;
        v = in0[(i0)*12288 + (r0)*4096 + (((i2 * (16ll)) + r1))*64 + (((i3 * (16ll)) + r2))];
      }
      by_bs[kk * 8 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 288;
    const float* const bs = by_bs + cur * 128;
    #pragma unroll
    for (int kk = 0; kk < 16; ++kk) {
      float a[1], b[2];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 18 + ty + (i) * 16];
      #pragma unroll
      for (int i = 0; i < 2; ++i) b[i] = bs[kk * 8 + tx + (i) * 4];
      #pragma unroll
      for (int i = 0; i < 1; ++i)
        #pragma unroll
        for (int j = 0; j < 2; ++j) by_acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 2; ++j) by_ws[(((int)by_ks * 16 + by_tile) * 2 + i * 2 + j) * 64 + tid] = by_acc[i][j];
  __threadfence();   // this thread's partial sums are visible device-wide before the block arrives
  __syncthreads();
  int* const by_last = reinterpret_cast<int*>(by_smem);   // the stages are free: all reads are done
  if (tid == 0) *by_last = by_arrive(&by_block.arrivals[by_tile], 16u);
  __syncthreads();
  if (!*by_last) return;
  __threadfence();   // the other slices are read after their arrivals were seen
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 2; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 16; ++k)
    #pragma unroll
    for (int i = 0; i < 1; ++i)
      #pragma unroll
      for (int j = 0; j < 2; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 16 + by_tile) * 2 + i * 2 + j) * 64 + tid]);
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 16;
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int gn = by_n0 + tx + (j) * 4;
      int by_en = gn;
      const int i3 = by_en % 4; by_en /= 4;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*16 + (i2)*4 + (i3)] = (float)(acc);
    }
  }
}
BY_DEVICE_STATE unsigned int conv_k0_arrivals[16];
BY_KERNEL void conv_k0(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k0_body(in0, in1, by_ws, out, by_this_block(conv_k0_arrivals));
}

// ===== add_k0 =====
BY_DEVICE void add_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_t0 = reinterpret_cast<float*>(by_smem + 0);
  int by_blk = by_block.idx.x;
  const int by_b0 = (by_blk % 4) * 32; by_blk /= 4;
  const int by_a0 = (by_blk % 1) * 32; by_blk /= 1;
  const int i0 = 0;
  #pragma unroll
  for (int by_e = threadIdx.x; by_e < 1024; by_e += 128) {
    const int by_al = by_e % 32, by_bl = by_e / 32;
    const int by_ga = by_a0 + by_al, by_gb = by_b0 + by_bl;
    if (by_ga < 17) {
      const int i1 = by_ga;
      const int i2 = by_gb;
      by_t0[by_al * 33 + by_bl] = in0[(i0)*2048 + (i2)*16 + ((i1 - (1ll)))];
    }
  }
  __syncthreads();
  #pragma unroll
  for (int by_e = threadIdx.x; by_e < 1024; by_e += 128) {
    const int by_bl = by_e % 32, by_al = by_e / 32;
    const int by_ga = by_a0 + by_al, by_gb = by_b0 + by_bl;
    if (by_ga < 17) {
      const int i1 = by_ga;
      const int i2 = by_gb;
      out[(i1)*128 + (i2)] = (float)((((i1 < (1ll)) ? in1[(i0)*128 + (i1)*128 + (i2)] : by_t0[by_al * 33 + by_bl]) + in2[(i0)*2176 + (i1)*128 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(128) add_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  add_k0_body(in0, in1, in2, out, by_this_block());
}

// ===== layernorm_regrows_k0 =====
BY_DEVICE void layernorm_regrows_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  const int by_row = (int)by_block.idx.x * 1 + (threadIdx.x >> 5);
  if (by_row >= 17) return;  // the whole warp leaves together
  const int by_lane = threadIdx.x & 31;
  int by_rrem = by_row;
  const int by_r1 = by_rrem % 17; by_rrem /= 17;
  const int by_r0 = by_rrem;
  (void)by_rrem;
  const bool by_aligned = (((unsigned long long)(in0) | (unsigned long long)(in1) | (unsigned long long)(in2) | (unsigned long long)(out)) & 15ull) == 0ull;
  float by_c0[4];
  float by_c1[4];
  float by_c2[4];
  #pragma unroll
  for (int by_k = 0; by_k < 1; ++by_k) {
    const int by_j0 = by_k * 128 + by_lane * 4;
    if (by_j0 < 128) {
      if (by_aligned) {
        const int by_base = (by_r0) * 2176 + (by_r1) * 128 + (by_j0);
        const uint4 by_v = by_ld_global_b128(in0 + by_base);
        const float* const by_e = reinterpret_cast<const float*>(&by_v);
        #pragma unroll
        for (int by_u = 0; by_u < 4; ++by_u) by_c0[by_k * 4 + by_u] = (float)by_e[by_u];
      } else {
        #pragma unroll
        for (int by_u = 0; by_u < 4; ++by_u) {
          const int by_j = by_j0 + by_u;
          by_c0[by_k * 4 + by_u] = in0[(by_r0)*2176 + (by_r1)*128 + (by_j)];
        }
      }
      if (by_aligned) {
        const int by_base = (by_j0);
        const uint4 by_v = by_ld_global_b128(in1 + by_base);
        const float* const by_e = reinterpret_cast<const float*>(&by_v);
        #pragma unroll
        for (int by_u = 0; by_u < 4; ++by_u) by_c1[by_k * 4 + by_u] = (float)by_e[by_u];
      } else {
        #pragma unroll
        for (int by_u = 0; by_u < 4; ++by_u) {
          const int by_j = by_j0 + by_u;
          by_c1[by_k * 4 + by_u] = in1[(by_j)];
        }
      }
      if (by_aligned) {
        const int by_base = (by_j0);
        const uint4 by_v = by_ld_global_b128(in2 + by_base);
        const float* const by_e = reinterpret_cast<const float*>(&by_v);
        #pragma unroll
        for (int by_u = 0; by_u < 4; ++by_u) by_c2[by_k * 4 + by_u] = (float)by_e[by_u];
      } else {
        #pragma unroll
        for (int by_u = 0; by_u < 4; ++by_u) {
          const int by_j = by_j0 + by_u;
          by_c2[by_k * 4 + by_u] = in2[(by_j)];
        }
      }
    }
  }
  float by_st0;
  {
    float acc = 0.0f;
    #pragma unroll
    for (int by_s = 0; by_s < 4; ++by_s) {
      const int by_j = ((by_s) / 4) * 128 + by_lane * 4 + (by_s) % 4;
      (void)by_j;
      acc = acc + (by_c0[(by_s)]);
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    by_st0 = (float)(acc);
  }
  float by_st1;
  {
    float acc = 0.0f;
    #pragma unroll
    for (int by_s = 0; by_s < 4; ++by_s) {
      const int by_j = ((by_s) / 4) * 128 + by_lane * 4 + (by_s) % 4;
      (void)by_j;
      const float t0 = (by_c0[(by_s)] - (by_st0 / 128.0f));
      acc = acc + ((t0 * t0));
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    by_st1 = (float)(acc);
  }
  float by_o[4];
  #pragma unroll
  for (int by_s = 0; by_s < 4; ++by_s) {
    const int by_j = ((by_s) / 4) * 128 + by_lane * 4 + (by_s) % 4;
    (void)by_j;
    by_o[by_s] = (float)(((((by_c0[(by_s)] - (by_st0 / 128.0f)) * (1.0f / by_sqrt(((by_st1 / 128.0f) + 9.999999960041972e-13f)))) * by_c1[(by_s)]) + by_c2[(by_s)]));
  }
  #pragma unroll
  for (int by_k = 0; by_k < 1; ++by_k) {
    const int by_j0 = by_k * 128 + by_lane * 4;
    if (by_j0 < 128) {
      const int by_off = by_r0 * 2176 + by_r1 * 128 + by_j0;
      if (by_aligned) {
        uint4 by_v;
        float* const by_e = reinterpret_cast<float*>(&by_v);
        #pragma unroll
        for (int by_u = 0; by_u < 4; ++by_u) by_e[by_u] = by_o[by_k * 4 + by_u];
        by_st_global_b128(out + by_off, by_v);
      } else {
        for (int by_u = 0; by_u < 4; ++by_u) out[by_off + by_u] = by_o[by_k * 4 + by_u];
      }
    }
  }
}
BY_KERNEL void __launch_bounds__(32) layernorm_regrows_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  layernorm_regrows_k0_body(in0, in1, in2, out, by_this_block());
}

// ===== colaunch_k0 =====
BY_DEVICE void matmul_45395465e016c120_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 96;
  const int tid = threadIdx.x;
  const int tx = tid % 16;
  const int ty = tid / 16;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 8) * 16; by_blk /= 8;
  const int by_m0 = (by_blk % 3) * 8; by_blk /= 3;
  const int by_ks = (int)(by_blk % 8); by_blk /= 8;
  const unsigned int by_tile = by_block.idx.x % 24u + by_block.idx.x / 192u * 24u;
  const int i0 = 0;
  float by_acc[4][1];
  #pragma unroll
  for (int i = 0; i < 4; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 2;
  const int nloc = 16 - kt_begin < 2 ? 16 - kt_begin : 2;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 64; e += 32) {
      const int kk = e % 8; const int rr = e / 8;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      if (gr < 17) {
        const int i2 = gr;
        const int r0 = gk;
        v = in0[(i2)*128 + (r0)];
      }
      by_as[kk * 12 + rr] = v;
    }
    for (int e = tid; e < 128; e += 32) {
      const int rr = e % 16; const int kk = e / 16;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 64; by_rm /= 64;
        const int i1 = by_rm;
        const int r0 = gk;
        v = in1[(r0)*128 + (((i1 * (64ll)) + i3))];
      }
      by_bs[kk * 16 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 96;
    const float* const bs = by_bs + cur * 128;
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[4], b[1];
      #pragma unroll
      for (int g = 0; g < 1; ++g) {
        const float4 q = by_ld_shared_v4(as + kk * 12 + g * 8 + ty * 4);
        a[4 * g] = q.x; a[4 * g + 1] = q.y; a[4 * g + 2] = q.z; a[4 * g + 3] = q.w;
      }
      #pragma unroll
      for (int i = 0; i < 1; ++i) b[i] = bs[kk * 16 + tx + (i) * 16];
      #pragma unroll
      for (int i = 0; i < 4; ++i)
        #pragma unroll
        for (int j = 0; j < 1; ++j) by_acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  #pragma unroll
  for (int i = 0; i < 4; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_ws[(((int)by_ks * 24 + by_tile) * 4 + i * 1 + j) * 32 + tid] = by_acc[i][j];
  __threadfence();   // this thread's partial sums are visible device-wide before the block arrives
  __syncthreads();
  int* const by_last = reinterpret_cast<int*>(by_smem);   // the stages are free: all reads are done
  if (tid == 0) *by_last = by_arrive(&by_block.arrivals[by_tile], 8u);
  __syncthreads();
  if (!*by_last) return;
  __threadfence();   // the other slices are read after their arrivals were seen
  #pragma unroll
  for (int i = 0; i < 4; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 8; ++k)
    #pragma unroll
    for (int i = 0; i < 4; ++i)
      #pragma unroll
      for (int j = 0; j < 1; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 24 + by_tile) * 4 + i * 1 + j) * 32 + tid]);
  #pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int gm = by_m0 + ((i) >> 2) * 8 + ty * 4 + ((i) & 3);
    if (gm >= 17) continue;
    const int i2 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 16;
      int by_en = gn;
      const int i3 = by_en % 64; by_en /= 64;
      const int i1 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*1088 + (i2)*64 + (i3)] = (float)((acc + in2[(((i1 * (64ll)) + i3))]));
    }
  }
}
BY_DEVICE void matmul_dc1404573d0cec7b_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 64;
  const int tid = threadIdx.x;
  const int tx = tid % 16;
  const int ty = tid / 16;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 2) * 16; by_blk /= 2;
  const int by_m0 = (by_blk % 16) * 8; by_blk /= 16;
  const int by_ks = (int)(by_blk % 8); by_blk /= 8;
  const unsigned int by_tile = by_block.idx.x % 32u + by_block.idx.x / 256u * 32u;
  const int i0 = 0;
  float by_acc[4][1];
  #pragma unroll
  for (int i = 0; i < 4; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 2;
  const int nloc = 16 - kt_begin < 2 ? 16 - kt_begin : 2;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 64; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i2 = by_rm % 64; by_rm /= 64;
        const int i1 = by_rm;
        const int r0 = gk;
        v = in1[(r0)*128 + (((i1 * (64ll)) + i2))];
      }
      by_as[kk * 8 + rr] = v;
    }
    for (int e = tid; e < 128; e += 32) {
      const int kk = e % 8; const int rr = e / 8;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      if (gr < 17) {
        const int i3 = gr;
        const int r0 = gk;
        v = in0[(i3)*128 + (r0)];
      }
      by_bs[kk * 20 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 64;
    const float* const bs = by_bs + cur * 160;
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[4], b[1];
      #pragma unroll
      for (int g = 0; g < 1; ++g) {
        const float4 q = by_ld_shared_v4(as + kk * 8 + g * 8 + ty * 4);
        a[4 * g] = q.x; a[4 * g + 1] = q.y; a[4 * g + 2] = q.z; a[4 * g + 3] = q.w;
      }
      #pragma unroll
      for (int i = 0; i < 1; ++i) b[i] = bs[kk * 20 + tx + (i) * 16];
      #pragma unroll
      for (int i = 0; i < 4; ++i)
        #pragma unroll
        for (int j = 0; j < 1; ++j) by_acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  #pragma unroll
  for (int i = 0; i < 4; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_ws[(((int)by_ks * 32 + by_tile) * 4 + i * 1 + j) * 32 + tid] = by_acc[i][j];
  __threadfence();   // this thread's partial sums are visible device-wide before the block arrives
  __syncthreads();
  int* const by_last = reinterpret_cast<int*>(by_smem);   // the stages are free: all reads are done
  if (tid == 0) *by_last = by_arrive(&by_block.arrivals[by_tile], 8u);
  __syncthreads();
  if (!*by_last) return;
  __threadfence();   // the other slices are read after their arrivals were seen
  #pragma unroll
  for (int i = 0; i < 4; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 8; ++k)
    #pragma unroll
    for (int i = 0; i < 4; ++i)
      #pragma unroll
      for (int j = 0; j < 1; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 32 + by_tile) * 4 + i * 1 + j) * 32 + tid]);
  #pragma unroll
  for (int i = 0; i < 4; ++i) {
    const int gm = by_m0 + ((i) >> 2) * 8 + ty * 4 + ((i) & 3);
    int by_em = gm;
    const int i2 = by_em % 64; by_em /= 64;
    const int i1 = by_em;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 16;
      if (gn >= 17) continue;
      const int i3 = gn;
      const float acc = by_acc[i][j];
      out[(i1)*1088 + (i2)*17 + (i3)] = (float)(((acc + in2[(((i1 * (64ll)) + i2))]) * 0.3535533845424652f));
    }
  }
}
BY_DEVICE_STATE unsigned int colaunch_k0_m0_arrivals[24];
BY_DEVICE_STATE unsigned int colaunch_k0_m1_arrivals[32];
BY_DEVICE void colaunch_k0_body(const float* __restrict__ m0_in0, const float* __restrict__ m0_in1, const float* __restrict__ m0_in2, float* __restrict__ m0_by_ws, float* __restrict__ m0_out, const float* __restrict__ m1_in0, const float* __restrict__ m1_in1, const float* __restrict__ m1_in2, float* __restrict__ m1_by_ws, float* __restrict__ m1_out, const by_block_index by_block) {
  const unsigned int by_b = by_block.idx.x;
  if (by_b < 192u) matmul_45395465e016c120_body(m0_in0, m0_in1, m0_in2, m0_by_ws, m0_out, by_block_at(by_b - 0u, dim3(192, 1, 1), colaunch_k0_m0_arrivals));
  else if (by_b < 448u) matmul_dc1404573d0cec7b_body(m1_in0, m1_in1, m1_in2, m1_by_ws, m1_out, by_block_at(by_b - 192u, dim3(256, 1, 1), colaunch_k0_m1_arrivals));
}
BY_KERNEL void __launch_bounds__(32) colaunch_k0(const float* __restrict__ m0_in0, const float* __restrict__ m0_in1, const float* __restrict__ m0_in2, float* __restrict__ m0_by_ws, float* __restrict__ m0_out, const float* __restrict__ m1_in0, const float* __restrict__ m1_in1, const float* __restrict__ m1_in2, float* __restrict__ m1_by_ws, float* __restrict__ m1_out) {
  colaunch_k0_body(m0_in0, m0_in1, m0_in2, m0_by_ws, m0_out, m1_in0, m1_in1, m1_in2, m1_by_ws, m1_out, by_this_block());
}

// ===== matmul_rows_k0 =====
BY_DEVICE void matmul_rows_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem_raw);
  float* const by_res0 = reinterpret_cast<float*>(by_smem_raw + 0);
  float* const by_res1 = reinterpret_cast<float*>(by_smem_raw + 256);
  float* const by_st2 = reinterpret_cast<float*>(by_smem_raw + 336);
  float* const by_st3 = reinterpret_cast<float*>(by_smem_raw + 352);
  float* const by_res = reinterpret_cast<float*>(by_smem_raw + 368);
  const int by_row0 = (int)by_block.idx.x * 1;
  const int by_lane = threadIdx.x & 31, by_warp = threadIdx.x >> 5;
  (void)by_lane; (void)by_warp;
  for (int by_lin = threadIdx.x; by_lin < 64; by_lin += 256) {
    const int by_rl = by_lin / 64;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 34) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 17; by_rrem /= 17;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i2 = by_lin % 64;
    float acc = 0.0f;
    for (int r0 = 0; r0 < 128; r0 += 1) {
      const float v = (in0[(i1)*128 + (r0)] * in1[(r0)*128 + (((i0 * (64ll)) + i2))]);
      acc = acc + v;
    }
    by_res0[by_lin] = (float)(((acc + in2[(((i0 * (64ll)) + i2))]) * 0.3535533845424652f));
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 17; by_lin += 256) {
    const int by_rl = by_lin / 17;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 34) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 17; by_rrem /= 17;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i2 = by_lin % 17;
    float acc = 0.0f;
    for (int r0 = 0; r0 < 64; r0 += 1) {
      const float v = (by_res0[(by_rl)*64 + (r0)] * in3[(i0)*1088 + (r0)*17 + (i2)]);
      acc = acc + v;
    }
    by_res1[by_lin] = (float)((acc + in4[(i1)*17 + (i2)]));
  }
  __syncthreads();
  for (int by_rl = by_warp / 1; by_rl < 1; by_rl += 8) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 34) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 17; by_rrem /= 17;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = (-by_inf_f());
    for (int r0 = by_lane; r0 < 17; r0 += 32) {
      const float v = by_res1[(by_rl)*17 + (r0)];
      acc = by_max(acc, v);
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = by_max(acc, o);
    }
    if (by_lane == 0) by_st2[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (int by_rl = by_warp / 1; by_rl < 1; by_rl += 8) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 34) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 17; by_rrem /= 17;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = 0.0f;
    for (int r0 = by_lane; r0 < 17; r0 += 32) {
      const float v = by_exp((by_res1[(by_rl)*17 + (r0)] - by_st2[(by_rl)]));
      acc = acc + v;
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    if (by_lane == 0) by_st3[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 17; by_lin += 256) {
    const int by_rl = by_lin / 17;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 34) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 17; by_rrem /= 17;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i2 = by_lin % 17;
    by_res[by_lin] = (float)((by_exp((by_res1[(by_rl)*17 + (i2)] - by_st2[(by_rl)])) / by_st3[(by_rl)]));
  }
  __syncthreads();
  for (int by_rl = by_warp / 1; by_rl < 1; by_rl += 8) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 34) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 17; by_rrem /= 17;
    const int i2 = by_rrem;
    (void)by_rrem;
    for (int by_col = by_lane; by_col < 64; by_col += 32) {
      int by_crem = by_col;
      const int i3 = by_crem % 64; by_crem /= 64;
      const int i0 = by_crem;
      (void)by_crem;
      float acc = 0.0f;
      for (int r0 = 0; r0 < 17; r0 += 1) {
        const float t0 = by_res[(by_rl)*17 + (r0)];
        const float v = ((by_isnan(t0) ? 0.0f : t0) * in5[(i0)*2176 + (i2)*1088 + (r0)*64 + (i3)]);
        acc = acc + v;
      }
      out[i0 * 2176 + i1 * 128 + i2 * 64 + i3 * 1] = (float)(acc);
    }
  }
}
BY_KERNEL void __launch_bounds__(256) matmul_rows_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ out) {
  matmul_rows_k0_body(in0, in1, in2, in3, in4, in5, out, by_this_block());
}

// ===== layernorm_rows_k0 =====
BY_DEVICE void layernorm_rows_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, const float* __restrict__ in6, const float* __restrict__ in7, float* __restrict__ out0, float* __restrict__ out, const by_block_index by_block) {
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
    if (by_row >= 17) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i1 = by_lin % 128;
    float acc = 0.0f;
    for (int r0 = 0; r0 < 128; r0 += 1) {
      const float v = (in0[(i0)*128 + (r0)] * in1[(r0)*128 + (i1)]);
      acc = acc + v;
    }
    by_res0[by_lin] = (float)(((acc + in2[(i1)]) + in3[(i0)*128 + (i1)]));
  }
  __syncthreads();
  for (int by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 17) break;
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
    if (by_row >= 17) break;
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
    if (by_row >= 17) break;
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
    if (by_row >= 17) break;
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
    if (by_row >= 17) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i1 = by_lin % 128;
    by_res3[by_lin] = (float)(((((by_res0[(by_rl)*128 + (i1)] - (by_st1[(by_rl)] / 128.0f)) * (1.0f / by_sqrt(((by_st2[(by_rl)] / 128.0f) + 9.999999960041972e-13f)))) * in4[(i1)]) + in2[(i1)]));
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 512; by_lin += 256) {
    const int by_rl = by_lin / 512;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 17) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i1 = by_lin % 512;
    float acc = 0.0f;
    for (int r0 = 0; r0 < 128; r0 += 1) {
      const float v = (by_res3[(by_rl)*128 + (r0)] * in5[(r0)*512 + (i1)]);
      acc = acc + v;
    }
    const float t0 = (acc + in6[(i1)]);
    by_res4[by_lin] = (float)((t0 * (0.5f * (by_erf((t0 / 1.4142135381698608f)) + 1.0f))));
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 128; by_lin += 256) {
    const int by_rl = by_lin / 128;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 17) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i1 = by_lin % 128;
    float acc = 0.0f;
    for (int r0 = 0; r0 < 512; r0 += 1) {
      const float v = (by_res4[(by_rl)*512 + (r0)] * in7[(r0)*128 + (i1)]);
      acc = acc + v;
    }
    by_res[by_lin] = (float)(((acc + in2[(i1)]) + by_res0[(by_rl)*128 + (i1)]));
    out0[by_row * 128 + i1] = (float)(by_res[by_lin]);
  }
  __syncthreads();
  for (int by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 17) break;
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
    if (by_row >= 17) break;
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
    if (by_row >= 17) break;
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
    if (by_row >= 17) break;
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
    if (by_row >= 17) break;
    int by_rrem = by_row;
    const int i1 = by_rrem;
    (void)by_rrem;
    for (int by_col = (by_lane + 32 * (by_warp % 2)); by_col < 128; by_col += 64) {
      int by_crem = by_col;
      const int i2 = by_crem % 128; by_crem /= 128;
      const int i0 = by_crem;
      (void)by_crem;
      out[i0 * 2176 + i1 * 128 + i2 * 1] = (float)(((((by_res[(by_rl)*128 + (i2)] - (by_st6[(by_rl)] / 128.0f)) * (1.0f / by_sqrt(((by_st7[(by_rl)] / 128.0f) + 9.999999960041972e-13f)))) * in4[(i2)]) + in2[(i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(256) layernorm_rows_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, const float* __restrict__ in6, const float* __restrict__ in7, float* __restrict__ out0, float* __restrict__ out) {
  layernorm_rows_k0_body(in0, in1, in2, in3, in4, in5, in6, in7, out0, out, by_this_block());
}

// ===== layernorm_rows_k1 =====
BY_DEVICE void layernorm_rows_k1_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, const float* __restrict__ in6, const float* __restrict__ in7, float* __restrict__ out, const by_block_index by_block) {
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
    if (by_row >= 17) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i1 = by_lin % 128;
    float acc = 0.0f;
    for (int r0 = 0; r0 < 128; r0 += 1) {
      const float v = (in0[(i0)*128 + (r0)] * in1[(r0)*128 + (i1)]);
      acc = acc + v;
    }
    by_res0[by_lin] = (float)(((acc + in2[(i1)]) + in3[(i0)*128 + (i1)]));
  }
  __syncthreads();
  for (int by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 17) break;
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
    if (by_row >= 17) break;
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
    if (by_row >= 17) break;
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
    if (by_row >= 17) break;
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
    if (by_row >= 17) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i1 = by_lin % 128;
    by_res3[by_lin] = (float)(((((by_res0[(by_rl)*128 + (i1)] - (by_st1[(by_rl)] / 128.0f)) * (1.0f / by_sqrt(((by_st2[(by_rl)] / 128.0f) + 9.999999960041972e-13f)))) * in4[(i1)]) + in2[(i1)]));
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 512; by_lin += 256) {
    const int by_rl = by_lin / 512;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 17) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i1 = by_lin % 512;
    float acc = 0.0f;
    for (int r0 = 0; r0 < 128; r0 += 1) {
      const float v = (by_res3[(by_rl)*128 + (r0)] * in5[(r0)*512 + (i1)]);
      acc = acc + v;
    }
    const float t0 = (acc + in6[(i1)]);
    by_res4[by_lin] = (float)((t0 * (0.5f * (by_erf((t0 / 1.4142135381698608f)) + 1.0f))));
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 128; by_lin += 256) {
    const int by_rl = by_lin / 128;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 17) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i1 = by_lin % 128;
    float acc = 0.0f;
    for (int r0 = 0; r0 < 512; r0 += 1) {
      const float v = (by_res4[(by_rl)*512 + (r0)] * in7[(r0)*128 + (i1)]);
      acc = acc + v;
    }
    by_res[by_lin] = (float)(((acc + in2[(i1)]) + by_res0[(by_rl)*128 + (i1)]));
  }
  __syncthreads();
  for (int by_rl = by_warp / 2; by_rl < 1; by_rl += 4) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 17) break;
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
    if (by_row >= 17) break;
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
    if (by_row >= 17) break;
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
    if (by_row >= 17) break;
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
    if (by_row >= 17) break;
    int by_rrem = by_row;
    const int i1 = by_rrem;
    (void)by_rrem;
    for (int by_col = (by_lane + 32 * (by_warp % 2)); by_col < 128; by_col += 64) {
      int by_crem = by_col;
      const int i2 = by_crem % 128; by_crem /= 128;
      const int i0 = by_crem;
      (void)by_crem;
      out[i0 * 2176 + i1 * 128 + i2 * 1] = (float)(((((by_res[(by_rl)*128 + (i2)] - (by_st6[(by_rl)] / 128.0f)) * (1.0f / by_sqrt(((by_st7[(by_rl)] / 128.0f) + 9.999999960041972e-13f)))) * in4[(i2)]) + in2[(i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(256) layernorm_rows_k1(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, const float* __restrict__ in6, const float* __restrict__ in7, float* __restrict__ out) {
  layernorm_rows_k1_body(in0, in1, in2, in3, in4, in5, in6, in7, out, by_this_block());
}
