// golden: branchy.onnx h100 fp32
// 8 launches, 6 distinct kernels
// launch 0: reducemean_k0 grid=[1, 1, 1] block=[1024, 1, 1] shared=256 params=[float out:float]
// launch 1: greater_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:bool]
// launch 2: matmul_k0 grid=[32, 1, 1] block=[128, 1, 1] shared=1152 params=[float float out:float]
// launch 3: add_k0 grid=[16, 1, 1] block=[128, 1, 1] shared=0 params=[float float out:float]
// launch 4: relu_k0 grid=[16, 1, 1] block=[128, 1, 1] shared=0 params=[float out:float]
// launch 5: matmul_k0 grid=[32, 1, 1] block=[128, 1, 1] shared=1152 params=[float float out:float]
// launch 6: add_k0 grid=[16, 1, 1] block=[128, 1, 1] shared=0 params=[float float out:float]
// launch 7: tanh_k0 grid=[16, 1, 1] block=[128, 1, 1] shared=0 params=[float out:float]

// ===== reducemean_k0 =====
BY_DEVICE void reducemean_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  const int tid = threadIdx.x;
  const int lane = tid % 1024;
  const int row = (int)by_block.idx.x * 1 + tid / 1024;
  const bool active = row < 1;
  float by_racc = 0;
  const int i0 = 0;
  const int i1 = 0;
  const int i2 = 0;
  const int rowc = active ? row : 0;
  if (active) for (int k = lane; k < 8192; k += 1024) {
    int by_rk = k;
    const int r2 = by_rk % 128; by_rk /= 128;
    const int r1 = by_rk % 64; by_rk /= 64;
    const int r0 = by_rk;
    const float v = in0[(r0)*8192 + (r1)*128 + (r2)];
    by_racc = by_racc + v;
  }
  for (int o = 16; o > 0; o >>= 1) {
    const float other = __shfl_xor_sync(0xFFFFFFFFu, by_racc, o);
    by_racc = by_racc + other;
  }
  float* const part = reinterpret_cast<float*>(by_smem);
  int* const part_have = reinterpret_cast<int*>(part + 32);
  if ((tid & 31) == 0) {
    part[tid >> 5] = by_racc;
    part_have[tid >> 5] = 1;
  }
  __syncthreads();
  if (tid < 32) {
    by_racc = tid < 32 ? part[tid] : (float)0;
    for (int o = 16; o > 0; o >>= 1) {
      const float other = __shfl_xor_sync(0xFFFFFFFFu, by_racc, o);
      by_racc = by_racc + other;
    }
  }
  if (active && lane == 0) {
    const float acc = by_racc;
    out[0] = (float)((acc / 8192.0f));
  }
}
BY_KERNEL void __launch_bounds__(1024) reducemean_k0(const float* __restrict__ in0, float* __restrict__ out) {
  reducemean_k0_body(in0, out, by_this_block());
}

// ===== greater_k0 =====
BY_DEVICE void greater_k0_body(const float* __restrict__ in0, bool* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 1; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 1) break;
      out[0] = (bool)((in0[0] > 0.0f));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) greater_k0(const float* __restrict__ in0, bool* __restrict__ out) {
  greater_k0_body(in0, out, by_this_block());
}

// ===== matmul_k0 =====
BY_DEVICE void matmul_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 160;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 8) * 16; by_blk /= 8;
  const int by_m0 = (by_blk % 4) * 16; by_blk /= 4;
  const int i0 = 0;
  float by_acc[1][2];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 2; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  for (int kt = 0; kt < 16; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 128; e += 128) {
      const int kk = e % 8; const int rr = e / 8;
      const int gr = by_ar0 + rr; const int gk = kt * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in0[(i0)*8192 + (i1)*128 + (r0)];
      }
      by_as[(0) * 160 + kk * 20 + rr] = v;
    }
    for (int e = tid; e < 128; e += 128) {
      const int rr = e % 16; const int kk = e / 16;
      const int gr = by_br0 + rr; const int gk = kt * 8 + kk;
      float v = 0;
      {
        const int i2 = gr;
        const int r0 = gk;
        v = in1[(r0)*128 + (i2)];
      }
      by_bs[(0) * 128 + kk * 16 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 160;
    const float* const bs = by_bs + cur * 128;
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[1], b[2];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 20 + ty + i * 16];
      #pragma unroll
      for (int j = 0; j < 2; ++j) b[j] = bs[kk * 16 + tx + j * 8];
      #pragma unroll
      for (int i = 0; i < 1; ++i)
        #pragma unroll
        for (int j = 0; j < 2; ++j) by_acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + i * 16;
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int gn = by_n0 + tx + j * 8;
      const int i2 = gn;
      const float acc = by_acc[i][j];
      out[(i1)*128 + (i2)] = (float)(acc);
    }
  }
}
BY_KERNEL void matmul_k0(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out) {
  matmul_k0_body(in0, in1, out, by_this_block());
}

// ===== add_k0 =====
BY_DEVICE void add_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0) | (unsigned long long)(in1)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 128 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 128;
  const int i0 = 0;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 128 + threadIdx.x; by_v0 < 2048; by_v0 += (int)by_block.grid.x * 128) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 128; by_rem /= 128;
        const int i1 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*8192 + (i1)*128 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        const uint4 by_r1 = by_ld_global_b128(in1 + ((i2)));
        const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)((by_e0[by_j] + by_e1[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 8192; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 128; by_rem /= 128;
      const int i1 = by_rem;
      out[(i1)*128 + (i2)] = (float)((in0[(i0)*8192 + (i1)*128 + (i2)] + in1[(i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(128) add_k0(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out) {
  add_k0_body(in0, in1, out, by_this_block());
}

// ===== relu_k0 =====
BY_DEVICE void relu_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 128 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 128;
  const int i0 = 0;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 128 + threadIdx.x; by_v0 < 2048; by_v0 += (int)by_block.grid.x * 128) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 128; by_rem /= 128;
        const int i1 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*8192 + (i1)*128 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_max(by_e0[by_j], 0.0f));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 8192; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 128; by_rem /= 128;
      const int i1 = by_rem;
      out[(i1)*128 + (i2)] = (float)(by_max(in0[(i0)*8192 + (i1)*128 + (i2)], 0.0f));
    }
  }
}
BY_KERNEL void __launch_bounds__(128) relu_k0(const float* __restrict__ in0, float* __restrict__ out) {
  relu_k0_body(in0, out, by_this_block());
}

// ===== tanh_k0 =====
BY_DEVICE void tanh_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 128 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 128;
  const int i0 = 0;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 128 + threadIdx.x; by_v0 < 2048; by_v0 += (int)by_block.grid.x * 128) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 128; by_rem /= 128;
        const int i1 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*8192 + (i1)*128 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_tanh(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 8192; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 128; by_rem /= 128;
      const int i1 = by_rem;
      out[(i1)*128 + (i2)] = (float)(by_tanh(in0[(i0)*8192 + (i1)*128 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(128) tanh_k0(const float* __restrict__ in0, float* __restrict__ out) {
  tanh_k0_body(in0, out, by_this_block());
}
