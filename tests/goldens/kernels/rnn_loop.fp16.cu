// golden: rnn_loop.onnx h100 fp16
// 1 launches, 1 distinct kernels
// launch 0: device_loop_k0 grid=[129, 1, 1] block=[128, 1, 1] shared=32 cooperative params=[bool out:long long long long out:float float out:long long out:bool float float out:float out:long long out:bool float float float out:float out:long long out:float]

// ===== device_loop_k0 =====
BY_DEVICE_CALLED void matmul_dda0b63bb95b8209_body(const float*  in0, const float*  in1, const float*  in2, float*  out, const by_block_index by_block) {
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
BY_DEVICE_CALLED void less_stitched_acafb8740dea6089_body(const long long*  in0, long long*  out0, bool*  out1, const by_block_index by_block) {
  for (int lin = (int)by_block.idx.x * blockDim.x + threadIdx.x; lin < 1; lin += (int)by_block.grid.x * blockDim.x) {
    const long long v0 = (long long)((in0[0] + (1ll)));
    out0[lin] = (long long)(v0);
    const bool v1 = (((v0 < (16ll))) != 0);
    out1[lin] = (bool)(v1);
  }
}
BY_DEVICE_CALLED void colaunch_8f6322bc0119081c_body(const float*  m0_in0, const float*  m0_in1, const float*  m0_in2, float*  m0_out, const long long*  m1_in0, long long*  m1_out0, bool*  m1_out1, const by_block_index by_block) {
  const unsigned int by_b = by_block.idx.x;
  if (by_b < 128u) matmul_dda0b63bb95b8209_body(m0_in0, m0_in1, m0_in2, m0_out, by_block_at(by_b - 0u, dim3(128, 1, 1)));
  else if (by_b < 129u) less_stitched_acafb8740dea6089_body(m1_in0, m1_out0, m1_out1, by_block_at(by_b - 128u, dim3(1, 1, 1)));
}
BY_DEVICE_CALLED void matmul_8fdd9357ac438ef2_body(const float*  in0, const long long*  in1, const float*  in2, const float*  in3, const float*  in4, float*  out, const by_block_index by_block) {
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
BY_DEVICE void device_loop_k0_body(const bool* p0, long long* p1, const long long* p2, float* p3, const float* p4, long long* p5, bool* p6, const float* p7, const float* p8, float* p9, long long* p10, bool* p11, const float* p12, const float* p13, const float* p14, float* p15, long long* p16, float* p17, const by_block_index by_block) {
  const unsigned int by_b = by_block.idx.x;
  const unsigned int by_g = by_block.grid.x;
  const unsigned int by_t = threadIdx.x;
  const unsigned long long by_tid = (unsigned long long)by_b * blockDim.x + threadIdx.x;
  const unsigned long long by_nthreads = (unsigned long long)by_g * blockDim.x;
  (void)by_t; (void)by_tid; (void)by_nthreads;
  {  // Loop node_while_loop__1
    const long long by_trip1 = 9223372036854775807ll;
    bool by_go1 = (p0[0] != 0);
    for (unsigned long long by_i = by_tid; by_i < 1ull; by_i += by_nthreads) p1[by_i] = p2[by_i];
    for (unsigned long long by_i = by_tid; by_i < 128ull; by_i += by_nthreads) p3[by_i] = p4[by_i];
    if (by_b == 0u && by_t == 0u) { p5[0] = 0; p6[0] = by_go1; }
    by_grid_sync();
    for (long long by_it1 = 0; by_it1 < by_trip1 && by_go1; ++by_it1) {
      for (unsigned int by_v = by_b; by_v < 129u; by_v += by_g) colaunch_8f6322bc0119081c_body(p3, p7, p8, p9, p1, p10, p11, by_block_at(by_v, dim3(129, 1, 1)));
      by_grid_sync();
      for (unsigned int by_v = by_b; by_v < 128u; by_v += by_g) matmul_8fdd9357ac438ef2_body(p12, p1, p13, p14, p9, p15, by_block_at(by_v, dim3(128, 1, 1)));
      by_grid_sync();
      by_go1 = (p11[0] != 0);
      for (unsigned long long by_i = by_tid; by_i < 1ull; by_i += by_nthreads) p1[by_i] = p10[by_i];
      for (unsigned long long by_i = by_tid; by_i < 128ull; by_i += by_nthreads) p3[by_i] = p15[by_i];
      if (by_b == 0u && by_t == 0u) { p5[0] = by_it1 + 1; p6[0] = by_go1; }
      by_grid_sync();
    }
    for (unsigned long long by_i = by_tid; by_i < 1ull; by_i += by_nthreads) p16[by_i] = p1[by_i];
    for (unsigned long long by_i = by_tid; by_i < 128ull; by_i += by_nthreads) p17[by_i] = p3[by_i];
    by_grid_sync();
  }
}
BY_KERNEL void __launch_bounds__(128, 1) device_loop_k0(const bool* p0, long long* p1, const long long* p2, float* p3, const float* p4, long long* p5, bool* p6, const float* p7, const float* p8, float* p9, long long* p10, bool* p11, const float* p12, const float* p13, const float* p14, float* p15, long long* p16, float* p17) {
  device_loop_k0_body(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, p11, p12, p13, p14, p15, p16, p17, by_this_block());
}
