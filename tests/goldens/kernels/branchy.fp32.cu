// golden: branchy.onnx h100 fp32
// 3 launches, 3 distinct kernels
// launch 0: reducemean_k0 grid=[1, 1, 1] block=[1024, 1, 1] shared=256 params=[float out:bool]
// launch 1: matmul_k0 grid=[32, 1, 1] block=[128, 1, 1] shared=1152 params=[float float float out:float]
// launch 2: matmul_k1 grid=[32, 1, 1] block=[128, 1, 1] shared=1152 params=[float float float out:float]

// ===== reducemean_k0 =====
BY_DEVICE void reducemean_k0_body(const float* __restrict__ in0, bool* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  const int tid = threadIdx.x;
  const int lane = tid % 1024;
  const int row = (int)by_block.idx.x * 1 + tid / 1024;
  const bool active = row < 1;
  float by_racc = 0;
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
    out[0] = (bool)(((acc / 8192.0f) > 0.0f));
  }
}
BY_KERNEL void __launch_bounds__(1024) reducemean_k0(const float* __restrict__ in0, bool* __restrict__ out) {
  reducemean_k0_body(in0, out, by_this_block());
}

// ===== matmul_k0 =====
BY_DEVICE void matmul_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
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
      out[(i1)*128 + (i2)] = (float)(by_max((acc + in2[(i2)]), 0.0f));
    }
  }
}
BY_KERNEL void matmul_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  matmul_k0_body(in0, in1, in2, out, by_this_block());
}

// ===== matmul_k1 =====
BY_DEVICE void matmul_k1_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
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
      out[(i1)*128 + (i2)] = (float)(by_tanh((acc + in2[(i2)])));
    }
  }
}
BY_KERNEL void matmul_k1(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  matmul_k1_body(in0, in1, in2, out, by_this_block());
}
