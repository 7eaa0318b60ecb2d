// golden: branchy.onnx h100 fp32
// 2 launches, 2 distinct kernels
// launch 0: reducemean_k0 grid=[2, 1, 1] block=[1024, 1, 1] shared=256 params=[float out:float out:bool]
// launch 1: device_if_k0 grid=[256, 1, 1] block=[32, 1, 1] shared=1152 cooperative params=[bool float float float out:float out:float out:float float float out:float out:float]

// ===== reducemean_k0 =====
BY_DEVICE void reducemean_k0_body(const float* __restrict__ in0, float* __restrict__ by_ws, bool* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  const int tid = threadIdx.x;
  const int by_slice = (int)by_block.idx.x % 2;
  const int row = (int)by_block.idx.x / 2;
  const int by_k0 = by_slice * 4096;
  const int by_k1 = by_k0 + 4096 < 8192 ? by_k0 + 4096 : 8192;
  float by_racc = 0;
  for (int k = by_k0 + tid; k < by_k1; k += 1024) {
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
  if (tid == 0) by_ws[row * 2 + by_slice] = (float)by_racc;
  __threadfence();   // the partial is visible device-wide before the block arrives
  __syncthreads();
  int* const by_last = reinterpret_cast<int*>(by_smem);   // the partials' slots are read
  if (tid == 0) *by_last = by_arrive(&by_block.arrivals[row], 2u);
  __syncthreads();
  if (!*by_last || tid >= 32) return;
  __threadfence();   // the other slices are read after their arrivals were seen
  by_racc = 0;
  for (int s = tid; s < 2; s += 32) {
    const float v = __ldcg(&by_ws[row * 2 + s]);
    by_racc = by_racc + v;
  }
  for (int o = 16; o > 0; o >>= 1) {
    const float other = __shfl_xor_sync(0xFFFFFFFFu, by_racc, o);
    by_racc = by_racc + other;
  }
  if (tid == 0) {
    const float acc = by_racc;
    out[0] = (bool)(((acc / 8192.0f) > 0.0f));
  }
}
BY_DEVICE_STATE unsigned int reducemean_k0_arrivals[1];
BY_KERNEL void __launch_bounds__(1024) reducemean_k0(const float* __restrict__ in0, float* __restrict__ by_ws, bool* __restrict__ out) {
  reducemean_k0_body(in0, by_ws, out, by_this_block(reducemean_k0_arrivals));
}

// ===== device_if_k0 =====
BY_DEVICE_CALLED void matmul_a499eb2a145c137a_body(const float*  in0, const float*  in1, const float*  in2, float*  by_ws, float*  out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 160;
  const int tid = threadIdx.x;
  const int tx = tid % 2;
  const int ty = tid / 2;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 8) * 16; by_blk /= 8;
  const int by_m0 = (by_blk % 4) * 16; by_blk /= 4;
  const int by_ks = (int)(by_blk % 8); by_blk /= 8;
  const unsigned int by_tile = by_block.idx.x % 32u + by_block.idx.x / 256u * 32u;
  const int i0 = 0;
  float by_acc[1][8];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 8; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 2;
  const int nloc = 16 - kt_begin < 2 ? 16 - kt_begin : 2;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 128; e += 32) {
      const int kk = e % 8; const int rr = e / 8;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in0[(i0)*8192 + (i1)*128 + (r0)];
      }
      by_as[kk * 20 + rr] = v;
    }
    for (int e = tid; e < 128; e += 32) {
      const int rr = e % 16; const int kk = e / 16;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i2 = gr;
        const int r0 = gk;
        v = in1[(r0)*128 + (i2)];
      }
      by_bs[kk * 16 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 160;
    const float* const bs = by_bs + cur * 128;
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[1], b[8];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 20 + ty + (i) * 16];
      #pragma unroll
      for (int g = 0; g < 2; ++g) {
        const float4 q = by_ld_shared_v4(bs + kk * 16 + g * 8 + tx * 4);
        b[4 * g] = q.x; b[4 * g + 1] = q.y; b[4 * g + 2] = q.z; b[4 * g + 3] = q.w;
      }
      #pragma unroll
      for (int i = 0; i < 1; ++i)
        #pragma unroll
        for (int j = 0; j < 8; ++j) by_acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 8; ++j) by_ws[(((int)by_ks * 32 + by_tile) * 8 + i * 8 + j) * 32 + tid] = by_acc[i][j];
  __threadfence();   // this thread's partial sums are visible device-wide before the block arrives
  __syncthreads();
  int* const by_last = reinterpret_cast<int*>(by_smem);   // the stages are free: all reads are done
  if (tid == 0) *by_last = by_arrive(&by_block.arrivals[by_tile], 8u);
  __syncthreads();
  if (!*by_last) return;
  __threadfence();   // the other slices are read after their arrivals were seen
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 8; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 8; ++k)
    #pragma unroll
    for (int i = 0; i < 1; ++i)
      #pragma unroll
      for (int j = 0; j < 8; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 32 + by_tile) * 8 + i * 8 + j) * 32 + tid]);
  const bool by_out_aligned = ((unsigned long long)(out) & 15ull) == 0ull;
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 16;
    const int i1 = gm;
    float* const by_orow = out + ((i1)*128);
    #pragma unroll
    for (int g = 0; g < 2; ++g) {
      const int gn0 = by_n0 + g * 8 + tx * 4;
      float by_ov[4];
      {
        const int gn = gn0 + 0;
        const int i2 = gn;
        const float acc = by_acc[i][4 * g + 0];
        by_ov[0] = (float)(by_max((acc + in2[(i2)]), 0.0f));
      }
      {
        const int gn = gn0 + 1;
        const int i2 = gn;
        const float acc = by_acc[i][4 * g + 1];
        by_ov[1] = (float)(by_max((acc + in2[(i2)]), 0.0f));
      }
      {
        const int gn = gn0 + 2;
        const int i2 = gn;
        const float acc = by_acc[i][4 * g + 2];
        by_ov[2] = (float)(by_max((acc + in2[(i2)]), 0.0f));
      }
      {
        const int gn = gn0 + 3;
        const int i2 = gn;
        const float acc = by_acc[i][4 * g + 3];
        by_ov[3] = (float)(by_max((acc + in2[(i2)]), 0.0f));
      }
      if (by_out_aligned) {
        const float4 by_v = {by_ov[0], by_ov[1], by_ov[2], by_ov[3]};
        by_st_global_v4(by_orow + gn0, by_v);
      } else {
        for (int q = 0; q < 4; ++q) by_orow[gn0 + q] = by_ov[q];
      }
    }
  }
}
BY_DEVICE_CALLED void matmul_8307dec72116aa89_body(const float*  in0, const float*  in1, const float*  in2, float*  by_ws, float*  out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 160;
  const int tid = threadIdx.x;
  const int tx = tid % 2;
  const int ty = tid / 2;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 8) * 16; by_blk /= 8;
  const int by_m0 = (by_blk % 4) * 16; by_blk /= 4;
  const int by_ks = (int)(by_blk % 8); by_blk /= 8;
  const unsigned int by_tile = by_block.idx.x % 32u + by_block.idx.x / 256u * 32u;
  const int i0 = 0;
  float by_acc[1][8];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 8; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 2;
  const int nloc = 16 - kt_begin < 2 ? 16 - kt_begin : 2;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 128; e += 32) {
      const int kk = e % 8; const int rr = e / 8;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in0[(i0)*8192 + (i1)*128 + (r0)];
      }
      by_as[kk * 20 + rr] = v;
    }
    for (int e = tid; e < 128; e += 32) {
      const int rr = e % 16; const int kk = e / 16;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i2 = gr;
        const int r0 = gk;
        v = in1[(r0)*128 + (i2)];
      }
      by_bs[kk * 16 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 160;
    const float* const bs = by_bs + cur * 128;
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[1], b[8];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 20 + ty + (i) * 16];
      #pragma unroll
      for (int g = 0; g < 2; ++g) {
        const float4 q = by_ld_shared_v4(bs + kk * 16 + g * 8 + tx * 4);
        b[4 * g] = q.x; b[4 * g + 1] = q.y; b[4 * g + 2] = q.z; b[4 * g + 3] = q.w;
      }
      #pragma unroll
      for (int i = 0; i < 1; ++i)
        #pragma unroll
        for (int j = 0; j < 8; ++j) by_acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 8; ++j) by_ws[(((int)by_ks * 32 + by_tile) * 8 + i * 8 + j) * 32 + tid] = by_acc[i][j];
  __threadfence();   // this thread's partial sums are visible device-wide before the block arrives
  __syncthreads();
  int* const by_last = reinterpret_cast<int*>(by_smem);   // the stages are free: all reads are done
  if (tid == 0) *by_last = by_arrive(&by_block.arrivals[by_tile], 8u);
  __syncthreads();
  if (!*by_last) return;
  __threadfence();   // the other slices are read after their arrivals were seen
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 8; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 8; ++k)
    #pragma unroll
    for (int i = 0; i < 1; ++i)
      #pragma unroll
      for (int j = 0; j < 8; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 32 + by_tile) * 8 + i * 8 + j) * 32 + tid]);
  const bool by_out_aligned = ((unsigned long long)(out) & 15ull) == 0ull;
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 16;
    const int i1 = gm;
    float* const by_orow = out + ((i1)*128);
    #pragma unroll
    for (int g = 0; g < 2; ++g) {
      const int gn0 = by_n0 + g * 8 + tx * 4;
      float by_ov[4];
      {
        const int gn = gn0 + 0;
        const int i2 = gn;
        const float acc = by_acc[i][4 * g + 0];
        by_ov[0] = (float)(by_tanh((acc + in2[(i2)])));
      }
      {
        const int gn = gn0 + 1;
        const int i2 = gn;
        const float acc = by_acc[i][4 * g + 1];
        by_ov[1] = (float)(by_tanh((acc + in2[(i2)])));
      }
      {
        const int gn = gn0 + 2;
        const int i2 = gn;
        const float acc = by_acc[i][4 * g + 2];
        by_ov[2] = (float)(by_tanh((acc + in2[(i2)])));
      }
      {
        const int gn = gn0 + 3;
        const int i2 = gn;
        const float acc = by_acc[i][4 * g + 3];
        by_ov[3] = (float)(by_tanh((acc + in2[(i2)])));
      }
      if (by_out_aligned) {
        const float4 by_v = {by_ov[0], by_ov[1], by_ov[2], by_ov[3]};
        by_st_global_v4(by_orow + gn0, by_v);
      } else {
        for (int q = 0; q < 4; ++q) by_orow[gn0 + q] = by_ov[q];
      }
    }
  }
}
BY_DEVICE_STATE unsigned int device_if_k0_s0_arrivals[32];
BY_DEVICE_STATE unsigned int device_if_k0_s1_arrivals[32];
BY_DEVICE void device_if_k0_body(const bool* p0, const float* p1, const float* p2, const float* p3, float* p4, float* p5, float* p6, const float* p7, const float* p8, float* p9, float* p10, const by_block_index by_block) {
  const unsigned int by_b = by_block.idx.x;
  const unsigned int by_g = by_block.grid.x;
  const unsigned int by_t = threadIdx.x;
  const unsigned long long by_tid = (unsigned long long)by_b * blockDim.x + threadIdx.x;
  const unsigned long long by_nthreads = (unsigned long long)by_g * blockDim.x;
  (void)by_t; (void)by_tid; (void)by_nthreads;
  if (p0[0]) {  // If node_cond__0: then
    for (unsigned int by_v = by_b; by_v < 256u; by_v += by_g) matmul_a499eb2a145c137a_body(p1, p2, p3, p4, p5, by_block_at(by_v, dim3(256, 1, 1), device_if_k0_s0_arrivals));
    by_grid_sync();
    for (unsigned long long by_i = by_tid; by_i < 8192ull; by_i += by_nthreads) p6[by_i] = p5[by_i];
    by_grid_sync();
  } else {
    for (unsigned int by_v = by_b; by_v < 256u; by_v += by_g) matmul_8307dec72116aa89_body(p1, p7, p8, p9, p10, by_block_at(by_v, dim3(256, 1, 1), device_if_k0_s1_arrivals));
    by_grid_sync();
    for (unsigned long long by_i = by_tid; by_i < 8192ull; by_i += by_nthreads) p6[by_i] = p10[by_i];
    by_grid_sync();
  }
}
BY_KERNEL void __launch_bounds__(32, 2) device_if_k0(const bool* p0, const float* p1, const float* p2, const float* p3, float* p4, float* p5, float* p6, const float* p7, const float* p8, float* p9, float* p10) {
  device_if_k0_body(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, by_this_block());
}
