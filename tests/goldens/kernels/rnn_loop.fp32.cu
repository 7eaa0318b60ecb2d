// golden: rnn_loop.onnx h100 fp32
// 4 launches, 4 distinct kernels
// launch 0: add_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[long long out:long long]
// launch 1: matmul_k0 grid=[128, 1, 1] block=[128, 1, 1] shared=32 params=[float float float out:float]
// launch 2: matmul_k1 grid=[128, 1, 1] block=[128, 1, 1] shared=32 params=[float long long float float float out:float]
// launch 3: less_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[long long out:bool]

// ===== add_k0 =====
BY_DEVICE void add_k0_body(const long long* __restrict__ in0, long long* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 1; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 1) break;
      out[0] = (long long)((in0[0] + (1ll)));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) add_k0(const long long* __restrict__ in0, long long* __restrict__ out) {
  add_k0_body(in0, out, by_this_block());
}

// ===== matmul_k0 =====
BY_DEVICE void matmul_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  const int tid = threadIdx.x;
  const int lane = tid % 128;
  const int row = (int)by_block.idx.x * 1 + tid / 128;
  const bool active = row < 128;
  float by_racc = 0;
  const int i0 = 0;
  const int rowc = active ? row : 0;
  const int i1 = rowc;
  if (active) for (int k = lane; k < 128; k += 128) {
    const int r0 = k;
    const float v = (in0[(i0)*128 + (r0)] * in1[(r0)*128 + (i1)]);
    by_racc = by_racc + v;
  }
  for (int o = 16; o > 0; o >>= 1) {
    const float other = __shfl_xor_sync(0xFFFFFFFFu, by_racc, o);
    by_racc = by_racc + other;
  }
  float* const part = reinterpret_cast<float*>(by_smem);
  int* const part_have = reinterpret_cast<int*>(part + 4);
  if ((tid & 31) == 0) {
    part[tid >> 5] = by_racc;
    part_have[tid >> 5] = 1;
  }
  __syncthreads();
  if (tid < 32) {
    by_racc = tid < 4 ? part[tid] : (float)0;
    for (int o = 16; o > 0; o >>= 1) {
      const float other = __shfl_xor_sync(0xFFFFFFFFu, by_racc, o);
      by_racc = by_racc + other;
    }
  }
  if (active && lane == 0) {
    const float acc = by_racc;
    out[(i1)] = (float)((acc + in2[(i1)]));
  }
}
BY_KERNEL void __launch_bounds__(128) matmul_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  matmul_k0_body(in0, in1, in2, out, by_this_block());
}

// ===== matmul_k1 =====
BY_DEVICE void matmul_k1_body(const float* __restrict__ in0, const long long* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  const int tid = threadIdx.x;
  const int lane = tid % 128;
  const int row = (int)by_block.idx.x * 1 + tid / 128;
  const bool active = row < 128;
  float by_racc = 0;
  const int i0 = 0;
  const int rowc = active ? row : 0;
  const int i1 = rowc;
  if (active) for (int k = lane; k < 128; k += 128) {
    const int r0 = k;
    const long long t0 = in1[0];
    const float v = (in0[(((t0 < (0ll)) ? (t0 + (16ll)) : t0))*128 + (r0)] * in2[(r0)*128 + (i1)]);
    by_racc = by_racc + v;
  }
  for (int o = 16; o > 0; o >>= 1) {
    const float other = __shfl_xor_sync(0xFFFFFFFFu, by_racc, o);
    by_racc = by_racc + other;
  }
  float* const part = reinterpret_cast<float*>(by_smem);
  int* const part_have = reinterpret_cast<int*>(part + 4);
  if ((tid & 31) == 0) {
    part[tid >> 5] = by_racc;
    part_have[tid >> 5] = 1;
  }
  __syncthreads();
  if (tid < 32) {
    by_racc = tid < 4 ? part[tid] : (float)0;
    for (int o = 16; o > 0; o >>= 1) {
      const float other = __shfl_xor_sync(0xFFFFFFFFu, by_racc, o);
      by_racc = by_racc + other;
    }
  }
  if (active && lane == 0) {
    const float acc = by_racc;
    out[(i1)] = (float)(by_tanh((in4[(i0)*128 + (i1)] + (acc + in3[(i1)]))));
  }
}
BY_KERNEL void __launch_bounds__(128) matmul_k1(const float* __restrict__ in0, const long long* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ out) {
  matmul_k1_body(in0, in1, in2, in3, in4, out, by_this_block());
}

// ===== less_k0 =====
BY_DEVICE void less_k0_body(const long long* __restrict__ in0, bool* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 1; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 1) break;
      out[0] = (bool)((in0[0] < (16ll)));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) less_k0(const long long* __restrict__ in0, bool* __restrict__ out) {
  less_k0_body(in0, out, by_this_block());
}
