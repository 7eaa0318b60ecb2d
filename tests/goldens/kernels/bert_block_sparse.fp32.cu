// golden: bert_block_sparse.onnx h100 fp32
// 7 launches, 7 distinct kernels
// launch 0: layernorm_regrows_k0 grid=[64, 1, 1] block=[32, 1, 1] shared=0 params=[float long long float float float float out:float]
// launch 1: colaunch_k0 grid=[512, 1, 1] block=[32, 1, 1] shared=896 params=[float float float out:float float float float out:float]
// launch 2: matmul_rows_k0 grid=[128, 1, 1] block=[256, 1, 1] shared=800 params=[float float float float float float out:float]
// launch 3: layernorm_rows_k0 grid=[64, 1, 1] block=[256, 1, 1] shared=3664 params=[float float float float float float float float out:float]
// launch 4: colaunch_k1 grid=[512, 1, 1] block=[32, 1, 1] shared=1664 params=[float float float out:float float float float out:float]
// launch 5: matmul_rows_k1 grid=[128, 1, 1] block=[256, 1, 1] shared=800 params=[float float float float float float out:float]
// launch 6: layernorm_rows_k1 grid=[64, 1, 1] block=[256, 1, 1] shared=3664 params=[float float float float float float float float out:float]

// ===== layernorm_regrows_k0 =====
BY_DEVICE void layernorm_regrows_k0_body(const float* __restrict__ in0, const long long* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ out, const by_block_index by_block) {
  const int by_row = (int)by_block.idx.x * 1 + (threadIdx.x >> 5);
  if (by_row >= 64) return;  // the whole warp leaves together
  const int by_lane = threadIdx.x & 31;
  int by_rrem = by_row;
  const int by_r0 = by_rrem;
  (void)by_rrem;
  const bool by_aligned = (((unsigned long long)(in2) | (unsigned long long)(in3)) & 15ull) == 0ull;
  float by_c0[4];
  float by_c1[4];
  #pragma unroll
  for (int by_k = 0; by_k < 1; ++by_k) {
    const int by_j0 = by_k * 128 + by_lane * 4;
    if (by_j0 < 128) {
      if (by_aligned) {
        const int by_base = ((0ll)) * 8192 + (by_r0) * 128 + (by_j0);
        const uint4 by_v = by_ld_global_b128(in2 + by_base);
        const float* const by_e = reinterpret_cast<const float*>(&by_v);
        #pragma unroll
        for (int by_u = 0; by_u < 4; ++by_u) by_c0[by_k * 4 + by_u] = (float)by_e[by_u];
      } else {
        #pragma unroll
        for (int by_u = 0; by_u < 4; ++by_u) {
          const int by_j = by_j0 + by_u;
          by_c0[by_k * 4 + by_u] = in2[(by_r0)*128 + (by_j)];
        }
      }
      if (by_aligned) {
        const int by_base = ((0ll)) * 8192 + (by_r0) * 128 + (by_j0);
        const uint4 by_v = by_ld_global_b128(in3 + by_base);
        const float* const by_e = reinterpret_cast<const float*>(&by_v);
        #pragma unroll
        for (int by_u = 0; by_u < 4; ++by_u) by_c1[by_k * 4 + by_u] = (float)by_e[by_u];
      } else {
        #pragma unroll
        for (int by_u = 0; by_u < 4; ++by_u) {
          const int by_j = by_j0 + by_u;
          by_c1[by_k * 4 + by_u] = in3[(by_r0)*128 + (by_j)];
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
      const long long t0 = in1[(by_r0)];
      acc = acc + (((in0[(((t0 < (0ll)) ? (t0 + (1000ll)) : t0))*128 + (by_j)] + by_c0[(by_s)]) + by_c1[(by_s)]));
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
      const long long t0 = in1[(by_r0)];
      const float t1 = (((in0[(((t0 < (0ll)) ? (t0 + (1000ll)) : t0))*128 + (by_j)] + by_c0[(by_s)]) + by_c1[(by_s)]) - (by_st0 / 128.0f));
      acc = acc + ((t1 * t1));
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
    const long long t0 = in1[(by_r0)];
    const int t1 = (by_j % (128ll));
    by_o[by_s] = (float)(((((((in0[(((t0 < (0ll)) ? (t0 + (1000ll)) : t0))*128 + (t1)] + in2[(by_r0)*128 + (t1)]) + in3[(by_r0)*128 + (t1)]) - (by_st0 / 128.0f)) * (1.0f / by_sqrt(((by_st1 / 128.0f) + 9.999999960041972e-13f)))) * in4[(t1)]) + in5[(t1)]));
  }
  #pragma unroll
  for (int by_k = 0; by_k < 1; ++by_k) {
    const int by_j0 = by_k * 128 + by_lane * 4;
    if (by_j0 < 128) {
      #pragma unroll
      for (int by_u = 0; by_u < 4; ++by_u) {
        const int by_j = by_j0 + by_u;
        int by_crem = by_j;
        const int by_i2 = by_crem % 128; by_crem /= 128;
        const int by_i0 = by_crem;
        (void)by_crem;
        out[by_i0 * 8192 + by_r0 * 128 + by_i2 * 1] = by_o[by_k * 4 + by_u];
      }
    }
  }
}
BY_KERNEL void __launch_bounds__(32) layernorm_regrows_k0(const float* __restrict__ in0, const long long* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ out) {
  layernorm_regrows_k0_body(in0, in1, in2, in3, in4, in5, out, by_this_block());
}

// ===== colaunch_k0 =====
BY_DEVICE_CONST int by_bcsr_1db76af4dadc_off[17] = {0, 0, 0, 0, 0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24};
BY_DEVICE_CONST int by_bcsr_1db76af4dadc_kt[24] = {0, 1, 0, 1, 0, 1, 0, 1, 2, 3, 2, 3, 2, 3, 2, 3, 4, 5, 4, 5, 4, 5, 4, 5};
BY_DEVICE void matmul_45027eb7db5d1940_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 96;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 16) * 8; by_blk /= 16;
  const int by_m0 = (by_blk % 16) * 4; by_blk /= 16;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int by_kt0 = by_bcsr_1db76af4dadc_off[(int)(by_n0 / 8)], by_nkt = by_bcsr_1db76af4dadc_off[(int)(by_n0 / 8) + 1] - by_kt0;
  for (int kt = 0; kt < by_nkt; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 64; e += 32) {
      const int kk = e % 16; const int rr = e / 16;
      const int gr = by_ar0 + rr; const int gk = (int)by_bcsr_1db76af4dadc_kt[by_kt0 + (kt)] * 16 + kk;
      float v = 0;
      {
        const int i2 = gr;
        const int r0 = gk;
        v = in0[(i2)*128 + (r0)];
      }
      by_as[kk * 6 + rr] = v;
    }
    for (int e = tid; e < 128; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_br0 + rr; const int gk = (int)by_bcsr_1db76af4dadc_kt[by_kt0 + (kt)] * 16 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 64; by_rm /= 64;
        const int i1 = by_rm;
        const int r0 = gk;
        v = in1[(r0)*128 + (((i1 * (64ll)) + i3))];
      }
      by_bs[kk * 8 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 96;
    const float* const bs = by_bs + cur * 128;
    #pragma unroll
    for (int kk = 0; kk < 16; ++kk) {
      float a[1], b[1];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 6 + ty + (i) * 4];
      #pragma unroll
      for (int i = 0; i < 1; ++i) b[i] = bs[kk * 8 + tx + (i) * 8];
      #pragma unroll
      for (int i = 0; i < 1; ++i)
        #pragma unroll
        for (int j = 0; j < 1; ++j) by_acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 4;
    const int i2 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 8;
      int by_en = gn;
      const int i3 = by_en % 64; by_en /= 64;
      const int i1 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*4096 + (i2)*64 + (i3)] = (float)((acc + in2[(((i1 * (64ll)) + i3))]));
    }
  }
}
BY_DEVICE_CONST int by_bcsr_9c9d6cd9a8db_off[33] = {0, 2, 4, 6, 8, 10, 12, 14, 16, 16, 16, 16, 16, 16, 16, 16, 16, 18, 20, 22, 24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46, 48};
BY_DEVICE_CONST int by_bcsr_9c9d6cd9a8db_kt[48] = {6, 7, 6, 7, 6, 7, 6, 7, 6, 7, 6, 7, 6, 7, 6, 7, 4, 5, 4, 5, 4, 5, 4, 5, 4, 5, 4, 5, 4, 5, 4, 5, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1};
BY_DEVICE void matmul_ca0b4087d03b0b5c_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 64;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 8) * 8; by_blk /= 8;
  const int by_m0 = (by_blk % 32) * 4; by_blk /= 32;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int by_kt0 = by_bcsr_9c9d6cd9a8db_off[(int)(by_m0 / 4)], by_nkt = by_bcsr_9c9d6cd9a8db_off[(int)(by_m0 / 4) + 1] - by_kt0;
  for (int kt = 0; kt < by_nkt; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 64; e += 32) {
      const int rr = e % 4; const int kk = e / 4;
      const int gr = by_ar0 + rr; const int gk = (int)by_bcsr_9c9d6cd9a8db_kt[by_kt0 + (kt)] * 16 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i2 = by_rm % 64; by_rm /= 64;
        const int i1 = by_rm;
        const int r0 = gk;
        v = in1[(r0)*128 + (((i1 * (64ll)) + i2))];
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 128; e += 32) {
      const int kk = e % 16; const int rr = e / 16;
      const int gr = by_br0 + rr; const int gk = (int)by_bcsr_9c9d6cd9a8db_kt[by_kt0 + (kt)] * 16 + kk;
      float v = 0;
      {
        const int i3 = gr;
        const int r0 = gk;
        v = in0[(i3)*128 + (r0)];
      }
      by_bs[kk * 10 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 64;
    const float* const bs = by_bs + cur * 160;
    #pragma unroll
    for (int kk = 0; kk < 16; ++kk) {
      float a[1], b[1];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 4 + ty + (i) * 4];
      #pragma unroll
      for (int i = 0; i < 1; ++i) b[i] = bs[kk * 10 + tx + (i) * 8];
      #pragma unroll
      for (int i = 0; i < 1; ++i)
        #pragma unroll
        for (int j = 0; j < 1; ++j) by_acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 4;
    int by_em = gm;
    const int i2 = by_em % 64; by_em /= 64;
    const int i1 = by_em;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 8;
      const int i3 = gn;
      const float acc = by_acc[i][j];
      out[(i1)*4096 + (i2)*64 + (i3)] = (float)(((acc + in2[(((i1 * (64ll)) + i2))]) * 0.3535533845424652f));
    }
  }
}
BY_DEVICE void colaunch_k0_body(const float* __restrict__ m0_in0, const float* __restrict__ m0_in1, const float* __restrict__ m0_in2, float* __restrict__ m0_out, const float* __restrict__ m1_in0, const float* __restrict__ m1_in1, const float* __restrict__ m1_in2, float* __restrict__ m1_out, const by_block_index by_block) {
  const unsigned int by_b = by_block.idx.x;
  if (by_b < 256u) matmul_45027eb7db5d1940_body(m0_in0, m0_in1, m0_in2, m0_out, by_block_at(by_b - 0u, dim3(256, 1, 1)));
  else if (by_b < 512u) matmul_ca0b4087d03b0b5c_body(m1_in0, m1_in1, m1_in2, m1_out, by_block_at(by_b - 256u, dim3(256, 1, 1)));
}
BY_KERNEL void __launch_bounds__(32) colaunch_k0(const float* __restrict__ m0_in0, const float* __restrict__ m0_in1, const float* __restrict__ m0_in2, float* __restrict__ m0_out, const float* __restrict__ m1_in0, const float* __restrict__ m1_in1, const float* __restrict__ m1_in2, float* __restrict__ m1_out) {
  colaunch_k0_body(m0_in0, m0_in1, m0_in2, m0_out, m1_in0, m1_in1, m1_in2, m1_out, by_this_block());
}

// ===== matmul_rows_k0 =====
BY_DEVICE_CONST int by_bcsr_4042abc4107c_off[5] = {0, 0, 2, 2, 3};
BY_DEVICE_CONST int by_bcsr_4042abc4107c_kt[3] = {0, 1, 2};
BY_DEVICE void matmul_rows_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem_raw);
  float* const by_res0 = reinterpret_cast<float*>(by_smem_raw + 0);
  float* const by_res1 = reinterpret_cast<float*>(by_smem_raw + 256);
  float* const by_st2 = reinterpret_cast<float*>(by_smem_raw + 512);
  float* const by_st3 = reinterpret_cast<float*>(by_smem_raw + 528);
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
    const int by_ct = (int)(((i0) * 64 + i2) / 32);
    for (int by_t = by_bcsr_4042abc4107c_off[by_ct]; by_t < by_bcsr_4042abc4107c_off[by_ct + 1]; ++by_t) {
      const int by_kb = (int)by_bcsr_4042abc4107c_kt[by_t] * 32;
      for (int r0 = by_kb; r0 < by_kb + 32; ++r0) {
        const float v = (in0[(i1)*128 + (r0)] * in1[(r0)*128 + (((i0 * (64ll)) + i2))]);
        acc = acc + v;
      }
    }
    by_res0[by_lin] = (float)(((acc + in2[(((i0 * (64ll)) + i2))]) * 0.3535533845424652f));
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
    float acc = 0.0f;
    for (int r0 = 0; r0 < 64; r0 += 1) {
      const float v = (by_res0[(by_rl)*64 + (r0)] * in3[(i0)*4096 + (r0)*64 + (i2)]);
      acc = acc + v;
    }
    by_res1[by_lin] = (float)((acc + in4[(i1)*64 + (i2)]));
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
      const float v = by_res1[(by_rl)*64 + (r0)];
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
    if (by_row >= 128) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 64; by_rrem /= 64;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = 0.0f;
    for (int r0 = by_lane; r0 < 64; r0 += 32) {
      const float v = by_exp((by_res1[(by_rl)*64 + (r0)] - by_st2[(by_rl)]));
      acc = acc + v;
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    if (by_lane == 0) by_st3[by_rl] = (float)(acc);
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
    by_res[by_lin] = (float)((by_exp((by_res1[(by_rl)*64 + (i2)] - by_st2[(by_rl)])) / by_st3[(by_rl)]));
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
        const float t0 = by_res[(by_rl)*64 + (r0)];
        const float v = ((by_isnan(t0) ? 0.0f : t0) * in5[(i0)*8192 + (i2)*4096 + (r0)*64 + (i3)]);
        acc = acc + v;
      }
      out[i0 * 8192 + i1 * 128 + i2 * 64 + i3 * 1] = (float)(acc);
    }
  }
}
BY_KERNEL void __launch_bounds__(256) matmul_rows_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ out) {
  matmul_rows_k0_body(in0, in1, in2, in3, in4, in5, out, by_this_block());
}

// ===== layernorm_rows_k0 =====
BY_DEVICE_CONST int by_bcsr_34555f328565_off[5] = {0, 2, 2, 3, 3};
BY_DEVICE_CONST int by_bcsr_34555f328565_kt[3] = {0, 3, 2};
BY_DEVICE_CONST int by_bcsr_6ba039926087_off[5] = {0, 3, 5, 5, 8};
BY_DEVICE_CONST int by_bcsr_6ba039926087_kt[8] = {2, 10, 14, 0, 12, 9, 11, 13};
BY_DEVICE_CONST int by_bcsr_f45488160b9c_off[17] = {0, 1, 2, 2, 2, 2, 2, 3, 3, 5, 5, 6, 6, 7, 7, 7, 8};
BY_DEVICE_CONST int by_bcsr_f45488160b9c_kt[8] = {2, 1, 0, 0, 2, 1, 2, 1};
BY_DEVICE void layernorm_rows_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, const float* __restrict__ in6, const float* __restrict__ in7, float* __restrict__ out, const by_block_index by_block) {
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
    const int by_ct = (int)((i1) / 32);
    for (int by_t = by_bcsr_34555f328565_off[by_ct]; by_t < by_bcsr_34555f328565_off[by_ct + 1]; ++by_t) {
      const int by_kb = (int)by_bcsr_34555f328565_kt[by_t] * 32;
      for (int r0 = by_kb; r0 < by_kb + 32; ++r0) {
        const float v = (in0[(i0)*128 + (r0)] * in1[(r0)*128 + (i1)]);
        acc = acc + v;
      }
    }
    by_res0[by_lin] = (float)(((acc + in2[(i1)]) + in3[(i0)*128 + (i1)]));
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
    by_res3[by_lin] = (float)(((((by_res0[(by_rl)*128 + (i1)] - (by_st1[(by_rl)] / 128.0f)) * (1.0f / by_sqrt(((by_st2[(by_rl)] / 128.0f) + 9.999999960041972e-13f)))) * in4[(i1)]) + in2[(i1)]));
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
    const int by_ct = (int)((i1) / 32);
    for (int by_t = by_bcsr_f45488160b9c_off[by_ct]; by_t < by_bcsr_f45488160b9c_off[by_ct + 1]; ++by_t) {
      const int by_kb = (int)by_bcsr_f45488160b9c_kt[by_t] * 32;
      for (int r0 = by_kb; r0 < by_kb + 32; ++r0) {
        const float v = (by_res3[(by_rl)*128 + (r0)] * in5[(r0)*512 + (i1)]);
        acc = acc + v;
      }
    }
    const float t0 = (acc + in6[(i1)]);
    by_res4[by_lin] = (float)((t0 * (0.5f * (by_erf((t0 / 1.4142135381698608f)) + 1.0f))));
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
    const int by_ct = (int)((i1) / 32);
    for (int by_t = by_bcsr_6ba039926087_off[by_ct]; by_t < by_bcsr_6ba039926087_off[by_ct + 1]; ++by_t) {
      const int by_kb = (int)by_bcsr_6ba039926087_kt[by_t] * 32;
      for (int r0 = by_kb; r0 < by_kb + 32; ++r0) {
        const float v = (by_res4[(by_rl)*512 + (r0)] * in7[(r0)*128 + (i1)]);
        acc = acc + v;
      }
    }
    by_res[by_lin] = (float)(((acc + in2[(i1)]) + by_res3[(by_rl)*128 + (i1)]));
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
      out[i0 * 8192 + i1 * 128 + i2 * 1] = (float)(((((by_res[(by_rl)*128 + (i2)] - (by_st6[(by_rl)] / 128.0f)) * (1.0f / by_sqrt(((by_st7[(by_rl)] / 128.0f) + 9.999999960041972e-13f)))) * in4[(i2)]) + in2[(i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(256) layernorm_rows_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, const float* __restrict__ in6, const float* __restrict__ in7, float* __restrict__ out) {
  layernorm_rows_k0_body(in0, in1, in2, in3, in4, in5, in6, in7, out, by_this_block());
}

// ===== colaunch_k1 =====
BY_DEVICE_CONST int by_bcsr_d9ee8910de0c_off[17] = {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 24, 24, 24, 24};
BY_DEVICE_CONST int by_bcsr_d9ee8910de0c_kt[24] = {4, 5, 4, 5, 4, 5, 4, 5, 2, 3, 2, 3, 2, 3, 2, 3, 6, 7, 6, 7, 6, 7, 6, 7};
BY_DEVICE void matmul_961f11eaf72971c6_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 96;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 16) * 8; by_blk /= 16;
  const int by_m0 = (by_blk % 16) * 4; by_blk /= 16;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int by_kt0 = by_bcsr_d9ee8910de0c_off[(int)(by_n0 / 8)], by_nkt = by_bcsr_d9ee8910de0c_off[(int)(by_n0 / 8) + 1] - by_kt0;
  for (int kt = 0; kt < by_nkt; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 64; e += 32) {
      const int kk = e % 16; const int rr = e / 16;
      const int gr = by_ar0 + rr; const int gk = (int)by_bcsr_d9ee8910de0c_kt[by_kt0 + (kt)] * 16 + kk;
      float v = 0;
      {
        const int i2 = gr;
        const int r0 = gk;
        v = in0[(i2)*128 + (r0)];
      }
      by_as[kk * 6 + rr] = v;
    }
    for (int e = tid; e < 128; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_br0 + rr; const int gk = (int)by_bcsr_d9ee8910de0c_kt[by_kt0 + (kt)] * 16 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 64; by_rm /= 64;
        const int i1 = by_rm;
        const int r0 = gk;
        v = in1[(r0)*128 + (((i1 * (64ll)) + i3))];
      }
      by_bs[kk * 8 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 96;
    const float* const bs = by_bs + cur * 128;
    #pragma unroll
    for (int kk = 0; kk < 16; ++kk) {
      float a[1], b[1];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 6 + ty + (i) * 4];
      #pragma unroll
      for (int i = 0; i < 1; ++i) b[i] = bs[kk * 8 + tx + (i) * 8];
      #pragma unroll
      for (int i = 0; i < 1; ++i)
        #pragma unroll
        for (int j = 0; j < 1; ++j) by_acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 4;
    const int i2 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 8;
      int by_en = gn;
      const int i3 = by_en % 64; by_en /= 64;
      const int i1 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*4096 + (i2)*64 + (i3)] = (float)((acc + in2[(((i1 * (64ll)) + i3))]));
    }
  }
}
BY_DEVICE_CONST int by_bcsr_dc4e847db8a4_off[33] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 4, 6, 8, 10, 12, 14, 16, 17, 18, 19, 20, 21, 22, 23, 24, 24, 24, 24, 24, 24, 24, 24, 24};
BY_DEVICE_CONST int by_bcsr_dc4e847db8a4_kt[24] = {2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0};
BY_DEVICE void matmul_f88f90b9a1c8e995_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 128;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 8) * 8; by_blk /= 8;
  const int by_m0 = (by_blk % 32) * 4; by_blk /= 32;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int by_kt0 = by_bcsr_dc4e847db8a4_off[(int)(by_m0 / 4)], by_nkt = by_bcsr_dc4e847db8a4_off[(int)(by_m0 / 4) + 1] - by_kt0;
  for (int kt = 0; kt < by_nkt; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 128; e += 32) {
      const int rr = e % 4; const int kk = e / 4;
      const int gr = by_ar0 + rr; const int gk = (int)by_bcsr_dc4e847db8a4_kt[by_kt0 + (kt)] * 32 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i2 = by_rm % 64; by_rm /= 64;
        const int i1 = by_rm;
        const int r0 = gk;
        v = in1[(r0)*128 + (((i1 * (64ll)) + i2))];
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 256; e += 32) {
      const int kk = e % 32; const int rr = e / 32;
      const int gr = by_br0 + rr; const int gk = (int)by_bcsr_dc4e847db8a4_kt[by_kt0 + (kt)] * 32 + kk;
      float v = 0;
      {
        const int i3 = gr;
        const int r0 = gk;
        v = in0[(i3)*128 + (r0)];
      }
      by_bs[kk * 9 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 128;
    const float* const bs = by_bs + cur * 288;
    #pragma unroll
    for (int kk = 0; kk < 32; ++kk) {
      float a[1], b[1];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 4 + ty + (i) * 4];
      #pragma unroll
      for (int i = 0; i < 1; ++i) b[i] = bs[kk * 9 + tx + (i) * 8];
      #pragma unroll
      for (int i = 0; i < 1; ++i)
        #pragma unroll
        for (int j = 0; j < 1; ++j) by_acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 4;
    int by_em = gm;
    const int i2 = by_em % 64; by_em /= 64;
    const int i1 = by_em;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 8;
      const int i3 = gn;
      const float acc = by_acc[i][j];
      out[(i1)*4096 + (i2)*64 + (i3)] = (float)(((acc + in2[(((i1 * (64ll)) + i2))]) * 0.3535533845424652f));
    }
  }
}
BY_DEVICE void colaunch_k1_body(const float* __restrict__ m0_in0, const float* __restrict__ m0_in1, const float* __restrict__ m0_in2, float* __restrict__ m0_out, const float* __restrict__ m1_in0, const float* __restrict__ m1_in1, const float* __restrict__ m1_in2, float* __restrict__ m1_out, const by_block_index by_block) {
  const unsigned int by_b = by_block.idx.x;
  if (by_b < 256u) matmul_961f11eaf72971c6_body(m0_in0, m0_in1, m0_in2, m0_out, by_block_at(by_b - 0u, dim3(256, 1, 1)));
  else if (by_b < 512u) matmul_f88f90b9a1c8e995_body(m1_in0, m1_in1, m1_in2, m1_out, by_block_at(by_b - 256u, dim3(256, 1, 1)));
}
BY_KERNEL void __launch_bounds__(32) colaunch_k1(const float* __restrict__ m0_in0, const float* __restrict__ m0_in1, const float* __restrict__ m0_in2, float* __restrict__ m0_out, const float* __restrict__ m1_in0, const float* __restrict__ m1_in1, const float* __restrict__ m1_in2, float* __restrict__ m1_out) {
  colaunch_k1_body(m0_in0, m0_in1, m0_in2, m0_out, m1_in0, m1_in1, m1_in2, m1_out, by_this_block());
}

// ===== matmul_rows_k1 =====
BY_DEVICE_CONST int by_bcsr_4a6966ee3adb_off[5] = {0, 0, 0, 3, 3};
BY_DEVICE_CONST int by_bcsr_4a6966ee3adb_kt[3] = {0, 1, 2};
BY_DEVICE void matmul_rows_k1_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem_raw);
  float* const by_res0 = reinterpret_cast<float*>(by_smem_raw + 0);
  float* const by_res1 = reinterpret_cast<float*>(by_smem_raw + 256);
  float* const by_st2 = reinterpret_cast<float*>(by_smem_raw + 512);
  float* const by_st3 = reinterpret_cast<float*>(by_smem_raw + 528);
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
    const int by_ct = (int)(((i0) * 64 + i2) / 32);
    for (int by_t = by_bcsr_4a6966ee3adb_off[by_ct]; by_t < by_bcsr_4a6966ee3adb_off[by_ct + 1]; ++by_t) {
      const int by_kb = (int)by_bcsr_4a6966ee3adb_kt[by_t] * 32;
      for (int r0 = by_kb; r0 < by_kb + 32; ++r0) {
        const float v = (in0[(i1)*128 + (r0)] * in1[(r0)*128 + (((i0 * (64ll)) + i2))]);
        acc = acc + v;
      }
    }
    by_res0[by_lin] = (float)(((acc + in2[(((i0 * (64ll)) + i2))]) * 0.3535533845424652f));
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
    float acc = 0.0f;
    for (int r0 = 0; r0 < 64; r0 += 1) {
      const float v = (by_res0[(by_rl)*64 + (r0)] * in3[(i0)*4096 + (r0)*64 + (i2)]);
      acc = acc + v;
    }
    by_res1[by_lin] = (float)((acc + in4[(i1)*64 + (i2)]));
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
      const float v = by_res1[(by_rl)*64 + (r0)];
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
    if (by_row >= 128) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 64; by_rrem /= 64;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = 0.0f;
    for (int r0 = by_lane; r0 < 64; r0 += 32) {
      const float v = by_exp((by_res1[(by_rl)*64 + (r0)] - by_st2[(by_rl)]));
      acc = acc + v;
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    if (by_lane == 0) by_st3[by_rl] = (float)(acc);
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
    by_res[by_lin] = (float)((by_exp((by_res1[(by_rl)*64 + (i2)] - by_st2[(by_rl)])) / by_st3[(by_rl)]));
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
        const float t0 = by_res[(by_rl)*64 + (r0)];
        const float v = ((by_isnan(t0) ? 0.0f : t0) * in5[(i0)*8192 + (i2)*4096 + (r0)*64 + (i3)]);
        acc = acc + v;
      }
      out[i0 * 8192 + i1 * 128 + i2 * 64 + i3 * 1] = (float)(acc);
    }
  }
}
BY_KERNEL void __launch_bounds__(256) matmul_rows_k1(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ out) {
  matmul_rows_k1_body(in0, in1, in2, in3, in4, in5, out, by_this_block());
}

// ===== layernorm_rows_k1 =====
BY_DEVICE_CONST int by_bcsr_122d0d7b11f8_off[17] = {0, 1, 1, 1, 1, 2, 2, 3, 4, 4, 4, 4, 4, 6, 8, 8, 8};
BY_DEVICE_CONST int by_bcsr_122d0d7b11f8_kt[8] = {3, 2, 1, 3, 0, 1, 0, 2};
BY_DEVICE_CONST int by_bcsr_6d32e1dbca75_off[5] = {0, 1, 3, 7, 8};
BY_DEVICE_CONST int by_bcsr_6d32e1dbca75_kt[8] = {8, 10, 13, 1, 7, 13, 15, 12};
BY_DEVICE_CONST int by_bcsr_eff0baaef42b_off[5] = {0, 2, 2, 3, 3};
BY_DEVICE_CONST int by_bcsr_eff0baaef42b_kt[3] = {1, 3, 3};
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
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i1 = by_lin % 128;
    float acc = 0.0f;
    const int by_ct = (int)((i1) / 32);
    for (int by_t = by_bcsr_eff0baaef42b_off[by_ct]; by_t < by_bcsr_eff0baaef42b_off[by_ct + 1]; ++by_t) {
      const int by_kb = (int)by_bcsr_eff0baaef42b_kt[by_t] * 32;
      for (int r0 = by_kb; r0 < by_kb + 32; ++r0) {
        const float v = (in0[(i0)*128 + (r0)] * in1[(r0)*128 + (i1)]);
        acc = acc + v;
      }
    }
    by_res0[by_lin] = (float)(((acc + in2[(i1)]) + in3[(i0)*128 + (i1)]));
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
    by_res3[by_lin] = (float)(((((by_res0[(by_rl)*128 + (i1)] - (by_st1[(by_rl)] / 128.0f)) * (1.0f / by_sqrt(((by_st2[(by_rl)] / 128.0f) + 9.999999960041972e-13f)))) * in4[(i1)]) + in2[(i1)]));
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
    const int by_ct = (int)((i1) / 32);
    for (int by_t = by_bcsr_122d0d7b11f8_off[by_ct]; by_t < by_bcsr_122d0d7b11f8_off[by_ct + 1]; ++by_t) {
      const int by_kb = (int)by_bcsr_122d0d7b11f8_kt[by_t] * 32;
      for (int r0 = by_kb; r0 < by_kb + 32; ++r0) {
        const float v = (by_res3[(by_rl)*128 + (r0)] * in5[(r0)*512 + (i1)]);
        acc = acc + v;
      }
    }
    const float t0 = (acc + in6[(i1)]);
    by_res4[by_lin] = (float)((t0 * (0.5f * (by_erf((t0 / 1.4142135381698608f)) + 1.0f))));
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
    const int by_ct = (int)((i1) / 32);
    for (int by_t = by_bcsr_6d32e1dbca75_off[by_ct]; by_t < by_bcsr_6d32e1dbca75_off[by_ct + 1]; ++by_t) {
      const int by_kb = (int)by_bcsr_6d32e1dbca75_kt[by_t] * 32;
      for (int r0 = by_kb; r0 < by_kb + 32; ++r0) {
        const float v = (by_res4[(by_rl)*512 + (r0)] * in7[(r0)*128 + (i1)]);
        acc = acc + v;
      }
    }
    by_res[by_lin] = (float)(((acc + in2[(i1)]) + by_res3[(by_rl)*128 + (i1)]));
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
      out[i0 * 8192 + i1 * 128 + i2 * 1] = (float)(((((by_res[(by_rl)*128 + (i2)] - (by_st6[(by_rl)] / 128.0f)) * (1.0f / by_sqrt(((by_st7[(by_rl)] / 128.0f) + 9.999999960041972e-13f)))) * in4[(i2)]) + in2[(i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(256) layernorm_rows_k1(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, const float* __restrict__ in6, const float* __restrict__ in7, float* __restrict__ out) {
  layernorm_rows_k1_body(in0, in1, in2, in3, in4, in5, in6, in7, out, by_this_block());
}
