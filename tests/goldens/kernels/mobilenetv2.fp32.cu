// golden: mobilenetv2.onnx h100 fp32
// 37 launches, 23 distinct kernels
// launch 0: conv_k0 grid=[256, 1, 1] block=[64, 1, 1] shared=1408 params=[float float float out:float]
// launch 1: conv_k1 grid=[512, 1, 1] block=[128, 1, 1] shared=512 params=[float float float out:float]
// launch 2: conv_k2 grid=[384, 1, 1] block=[128, 1, 1] shared=768 params=[float float float float float out:float]
// launch 3: conv_k3 grid=[192, 1, 1] block=[256, 1, 1] shared=0 params=[float float float out:float]
// launch 4: conv_k4 grid=[192, 1, 1] block=[32, 1, 1] shared=384 params=[float float float out:float out:float]
// launch 5: conv_k5 grid=[192, 1, 1] block=[64, 1, 1] shared=640 params=[float float float out:float]
// launch 6: conv_k6 grid=[384, 1, 1] block=[256, 1, 1] shared=1024 params=[float float float out:float]
// launch 7: conv_k7 grid=[192, 1, 1] block=[64, 1, 1] shared=640 params=[float float float float float float out:float]
// launch 8: conv_k8 grid=[96, 1, 1] block=[32, 1, 1] shared=384 params=[float float float float float out:float out:float]
// launch 9: conv_k9 grid=[192, 1, 1] block=[32, 1, 1] shared=768 params=[float float float out:float]
// launch 10: conv_k10 grid=[96, 1, 1] block=[32, 1, 1] shared=768 params=[float float float float float float out:float out:float]
// launch 11: conv_k9 grid=[192, 1, 1] block=[32, 1, 1] shared=768 params=[float float float out:float]
// launch 12: conv_k10 grid=[96, 1, 1] block=[32, 1, 1] shared=768 params=[float float float float float float out:float out:float]
// launch 13: conv_k9 grid=[192, 1, 1] block=[32, 1, 1] shared=768 params=[float float float out:float]
// launch 14: conv_k11 grid=[24, 1, 1] block=[32, 1, 1] shared=640 params=[float float float float float out:float out:float]
// launch 15: conv_k12 grid=[36, 1, 1] block=[64, 1, 1] shared=1280 params=[float float float out:float]
// launch 16: conv_k13 grid=[24, 1, 1] block=[32, 1, 1] shared=768 params=[float float float float float float out:float out:float]
// launch 17: conv_k12 grid=[36, 1, 1] block=[64, 1, 1] shared=1280 params=[float float float out:float]
// launch 18: conv_k13 grid=[24, 1, 1] block=[32, 1, 1] shared=768 params=[float float float float float float out:float out:float]
// launch 19: conv_k12 grid=[36, 1, 1] block=[64, 1, 1] shared=1280 params=[float float float out:float]
// launch 20: conv_k13 grid=[24, 1, 1] block=[32, 1, 1] shared=768 params=[float float float float float float out:float out:float]
// launch 21: conv_k12 grid=[36, 1, 1] block=[64, 1, 1] shared=1280 params=[float float float out:float]
// launch 22: conv_k14 grid=[32, 1, 1] block=[32, 1, 1] shared=768 params=[float float float float float out:float out:float]
// launch 23: conv_k15 grid=[48, 1, 1] block=[64, 1, 1] shared=1280 params=[float float float out:float]
// launch 24: conv_k16 grid=[32, 1, 1] block=[32, 1, 1] shared=768 params=[float float float float float float out:float out:float]
// launch 25: conv_k15 grid=[48, 1, 1] block=[64, 1, 1] shared=1280 params=[float float float out:float]
// launch 26: conv_k16 grid=[32, 1, 1] block=[32, 1, 1] shared=768 params=[float float float float float float out:float out:float]
// launch 27: conv_k15 grid=[48, 1, 1] block=[64, 1, 1] shared=1280 params=[float float float out:float]
// launch 28: conv_k17 grid=[56, 1, 1] block=[32, 1, 1] shared=512 params=[float float float float float out:float out:float]
// launch 29: conv_k18 grid=[168, 1, 1] block=[32, 1, 1] shared=768 params=[float float float out:float out:float]
// launch 30: conv_k19 grid=[224, 1, 1] block=[32, 1, 1] shared=384 params=[float float float float float float out:float out:float]
// launch 31: conv_k18 grid=[168, 1, 1] block=[32, 1, 1] shared=768 params=[float float float out:float out:float]
// launch 32: conv_k19 grid=[224, 1, 1] block=[32, 1, 1] shared=384 params=[float float float float float float out:float out:float]
// launch 33: conv_k18 grid=[168, 1, 1] block=[32, 1, 1] shared=768 params=[float float float out:float out:float]
// launch 34: conv_k20 grid=[224, 1, 1] block=[32, 1, 1] shared=512 params=[float float float float float out:float out:float]
// launch 35: conv_k21 grid=[160, 1, 1] block=[128, 1, 1] shared=3072 params=[float float float out:float out:float]
// launch 36: reducemean_k0 grid=[40, 1, 1] block=[128, 1, 1] shared=0 params=[float out:float]

// ===== conv_k0 =====
BY_DEVICE void conv_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 96;
  const int tid = threadIdx.x;
  const int tx = tid % 16;
  const int ty = tid / 16;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 64) * 16; by_blk /= 64;
  const int by_m0 = (by_blk % 4) * 4; by_blk /= 4;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  for (int kt = 0; kt < 2; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 64; e += 64) {
      const int kk = e % 16; const int rr = e / 16;
      const int gr = by_ar0 + rr; const int gk = kt * 16 + kk;
      float v = 0;
      if (gk < 27) {
        const int i1 = gr;
        int by_rk = gk;
        const int r2 = by_rk % 3; by_rk /= 3;
        const int r1 = by_rk % 3; by_rk /= 3;
        const int r0 = by_rk;
        v = in1[(i1)*27 + (r0)*9 + (r1)*3 + (r2)];
      }
      by_as[kk * 6 + rr] = v;
    }
    for (int e = tid; e < 256; e += 64) {
      const int rr = e % 16; const int kk = e / 16;
      const int gr = by_br0 + rr; const int gk = kt * 16 + kk;
      float v = 0;
      if (gk < 27) {
        int by_rm = gr;
        const int i3 = by_rm % 32; by_rm /= 32;
        const int i2 = by_rm;
        int by_rk = gk;
        const int r2 = by_rk % 3; by_rk /= 3;
        const int r1 = by_rk % 3; by_rk /= 3;
        const int r0 = by_rk;
        const int t0 = ((i2 * (2ll)) + r1);
        const int t1 = ((i3 * (2ll)) + r2);
        v = (((t0 < (64ll)) && (t1 < (64ll))) ? in0[(i0)*12288 + (r0)*4096 + (t0)*64 + (t1)] : 0.0f);
      }
      by_bs[kk * 16 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 96;
    const float* const bs = by_bs + cur * 256;
    #pragma unroll
    for (int kk = 0; kk < 16; ++kk) {
      float a[1], b[1];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 6 + ty + (i) * 4];
      #pragma unroll
      for (int i = 0; i < 1; ++i) b[i] = bs[kk * 16 + tx + (i) * 16];
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
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 16;
      int by_en = gn;
      const int i3 = by_en % 32; by_en /= 32;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*1024 + (i2)*32 + (i3)] = (float)(by_min(by_max((acc + in2[(i1)]), 0.0f), 6.0f));
    }
  }
}
BY_KERNEL void conv_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  conv_k0_body(in0, in1, in2, out, by_this_block());
}

// ===== conv_k1 =====
BY_DEVICE void conv_k1_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  const int tid = threadIdx.x;
  const int by_r = tid % 32, by_g = tid / 32;
  const int row = (int)by_block.idx.x * 32 + by_r;
  const bool active = row < 16384;
  float by_racc = 0;
  const int i0 = 0;
  const int rowc = active ? row : 0;
  int by_rr = rowc;
  const int i3 = by_rr % 32; by_rr /= 32;
  const int i2 = by_rr % 32; by_rr /= 32;
  const int i1 = by_rr;
  if (active) {
    #pragma unroll 4
    for (int k = by_g; k < 9; k += 4) {
      int by_rk = k;
      const int r1 = by_rk % 3; by_rk /= 3;
      const int r0 = by_rk;
      const int t0 = ((i2 + r0) - (1ll));
      const int t1 = ((i3 + r1) - (1ll));
      const float v = ((((((t0 >= (0ll)) && (t0 < (32ll))) && (t1 >= (0ll))) && (t1 < (32ll))) ? in0[(i0)*16384 + (i1)*1024 + (t0)*32 + (t1)] : 0.0f) * in1[(i1)*9 + (r0)*3 + (r1)]);
      by_racc = by_racc + v;
    }
  }
  float* const part = reinterpret_cast<float*>(by_smem);
  part[tid] = by_racc;
  __syncthreads();
  if (by_g != 0 || !active) return;
  for (int g = 1; g < 4; ++g) {
    const float other = part[g * 32 + by_r];
    by_racc = by_racc + other;
  }
  const float acc = by_racc;
  out[(i1)*1024 + (i2)*32 + (i3)] = (float)(by_min(by_max((acc + in2[(i1)]), 0.0f), 6.0f));
}
BY_KERNEL void __launch_bounds__(128) conv_k1(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  conv_k1_body(in0, in1, in2, out, by_this_block());
}

// ===== conv_k2 =====
BY_DEVICE void conv_k2_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 64;
  const int tid = threadIdx.x;
  const int tx = tid % 16;
  const int ty = tid / 16;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 64) * 16; by_blk /= 64;
  const int by_m0 = (by_blk % 6) * 8; by_blk /= 6;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  for (int kt = 0; kt < 1; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 64; e += 128) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_ar0 + rr; const int gk = kt * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in3[(i1)*8 + (r0)];
      }
      by_as[kk * 8 + rr] = v;
    }
    for (int e = tid; e < 128; e += 128) {
      const int rr = e % 16; const int kk = e / 16;
      const int gr = by_br0 + rr; const int gk = kt * 8 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 32; by_rm /= 32;
        const int i2 = by_rm;
        const int r0 = gk;
        v = (([&]() { float tf0_acc = 0.0f; BY_ROLLED for (int q0_0 = 0; q0_0 < 16; ++q0_0) { tf0_acc = tf0_acc + (in0[(i0)*16384 + (q0_0)*1024 + (i2)*32 + (i3)] * in1[(r0)*16 + (q0_0)]); } return tf0_acc; }()) + in2[(r0)]);
      }
      by_bs[kk * 16 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 64;
    const float* const bs = by_bs + cur * 128;
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[1], b[1];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 8 + ty + (i) * 8];
      #pragma unroll
      for (int i = 0; i < 1; ++i) b[i] = bs[kk * 16 + tx + (i) * 16];
      #pragma unroll
      for (int i = 0; i < 1; ++i)
        #pragma unroll
        for (int j = 0; j < 1; ++j) by_acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 8;
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 16;
      int by_en = gn;
      const int i3 = by_en % 32; by_en /= 32;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*1024 + (i2)*32 + (i3)] = (float)(by_min(by_max((acc + in4[(i1)]), 0.0f), 6.0f));
    }
  }
}
BY_KERNEL void conv_k2(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ out) {
  conv_k2_body(in0, in1, in2, in3, in4, out, by_this_block());
}

// ===== conv_k3 =====
BY_DEVICE void conv_k3_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  const int tid = threadIdx.x;
  const int lane = tid % 4;
  const int row = (int)by_block.idx.x * 64 + tid / 4;
  const bool active = row < 12288;
  float by_racc = 0;
  const int i0 = 0;
  const int rowc = active ? row : 0;
  int by_rr = rowc;
  const int i3 = by_rr % 16; by_rr /= 16;
  const int i2 = by_rr % 16; by_rr /= 16;
  const int i1 = by_rr;
  if (active) for (int k = lane; k < 9; k += 4) {
    int by_rk = k;
    const int r1 = by_rk % 3; by_rk /= 3;
    const int r0 = by_rk;
    const int t0 = ((i2 * (2ll)) + r0);
    const int t1 = ((i3 * (2ll)) + r1);
    const float v = ((((t0 < (32ll)) && (t1 < (32ll))) ? in0[(i0)*49152 + (i1)*1024 + (t0)*32 + (t1)] : 0.0f) * in1[(i1)*9 + (r0)*3 + (r1)]);
    by_racc = by_racc + v;
  }
  for (int o = 2; o > 0; o >>= 1) {
    const float other = __shfl_xor_sync(0xFFFFFFFFu, by_racc, o);
    by_racc = by_racc + other;
  }
  if (active && lane == 0) {
    const float acc = by_racc;
    out[(i1)*256 + (i2)*16 + (i3)] = (float)(by_min(by_max((acc + in2[(i1)]), 0.0f), 6.0f));
  }
}
BY_KERNEL void __launch_bounds__(256) conv_k3(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  conv_k3_body(in0, in1, in2, out, by_this_block());
}

// ===== conv_k4 =====
BY_DEVICE void conv_k4_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 32;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 32) * 8; by_blk /= 32;
  const int by_m0 = (by_blk % 2) * 4; by_blk /= 2;
  const int by_ks = (int)(by_blk % 3); by_blk /= 3;
  const unsigned int by_tile = by_block.idx.x % 64u + by_block.idx.x / 192u * 64u;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 2;
  const int nloc = 6 - kt_begin < 2 ? 6 - kt_begin : 2;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 32; e += 32) {
      const int rr = e % 4; const int kk = e / 4;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in1[(i1)*48 + (r0)];
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 64; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 16; by_rm /= 16;
        const int i2 = by_rm;
        const int r0 = gk;
        v = in0[(i0)*12288 + (r0)*256 + (i2)*16 + (i3)];
      }
      by_bs[kk * 8 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 32;
    const float* const bs = by_bs + cur * 64;
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[1], b[1];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 4 + ty + (i) * 4];
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
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_ws[(((int)by_ks * 64 + by_tile) * 1 + i * 1 + j) * 32 + tid] = by_acc[i][j];
  __threadfence();   // this thread's partial sums are visible device-wide before the block arrives
  __syncthreads();
  int* const by_last = reinterpret_cast<int*>(by_smem);   // the stages are free: all reads are done
  if (tid == 0) *by_last = by_arrive(&by_block.arrivals[by_tile], 3u);
  __syncthreads();
  if (!*by_last) return;
  __threadfence();   // the other slices are read after their arrivals were seen
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 3; ++k)
    #pragma unroll
    for (int i = 0; i < 1; ++i)
      #pragma unroll
      for (int j = 0; j < 1; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 64 + by_tile) * 1 + i * 1 + j) * 32 + tid]);
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 4;
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 8;
      int by_en = gn;
      const int i3 = by_en % 16; by_en /= 16;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*256 + (i2)*16 + (i3)] = (float)((acc + in2[(i1)]));
    }
  }
}
BY_DEVICE_STATE unsigned int conv_k4_arrivals[64];
BY_KERNEL void conv_k4(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k4_body(in0, in1, in2, by_ws, out, by_this_block(conv_k4_arrivals));
}

// ===== conv_k5 =====
BY_DEVICE void conv_k5_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 32;
  const int tid = threadIdx.x;
  const int tx = tid % 16;
  const int ty = tid / 16;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 16) * 16; by_blk /= 16;
  const int by_m0 = (by_blk % 12) * 4; by_blk /= 12;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  for (int kt = 0; kt < 1; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 32; e += 64) {
      const int rr = e % 4; const int kk = e / 4;
      const int gr = by_ar0 + rr; const int gk = kt * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in1[(i1)*8 + (r0)];
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 128; e += 64) {
      const int rr = e % 16; const int kk = e / 16;
      const int gr = by_br0 + rr; const int gk = kt * 8 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 16; by_rm /= 16;
        const int i2 = by_rm;
        const int r0 = gk;
        v = in0[(i0)*2048 + (r0)*256 + (i2)*16 + (i3)];
      }
      by_bs[kk * 16 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 32;
    const float* const bs = by_bs + cur * 128;
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[1], b[1];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 4 + ty + (i) * 4];
      #pragma unroll
      for (int i = 0; i < 1; ++i) b[i] = bs[kk * 16 + tx + (i) * 16];
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
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 16;
      int by_en = gn;
      const int i3 = by_en % 16; by_en /= 16;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*256 + (i2)*16 + (i3)] = (float)(by_min(by_max((acc + in2[(i1)]), 0.0f), 6.0f));
    }
  }
}
BY_KERNEL void conv_k5(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  conv_k5_body(in0, in1, in2, out, by_this_block());
}

// ===== conv_k6 =====
BY_DEVICE void conv_k6_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  const int tid = threadIdx.x;
  const int by_r = tid % 32, by_g = tid / 32;
  const int row = (int)by_block.idx.x * 32 + by_r;
  const bool active = row < 12288;
  float by_racc = 0;
  const int i0 = 0;
  const int rowc = active ? row : 0;
  int by_rr = rowc;
  const int i3 = by_rr % 16; by_rr /= 16;
  const int i2 = by_rr % 16; by_rr /= 16;
  const int i1 = by_rr;
  if (active) {
    #pragma unroll 4
    for (int k = by_g; k < 9; k += 8) {
      int by_rk = k;
      const int r1 = by_rk % 3; by_rk /= 3;
      const int r0 = by_rk;
      const int t0 = ((i2 + r0) - (1ll));
      const int t1 = ((i3 + r1) - (1ll));
      const float v = ((((((t0 >= (0ll)) && (t0 < (16ll))) && (t1 >= (0ll))) && (t1 < (16ll))) ? in0[(i0)*12288 + (i1)*256 + (t0)*16 + (t1)] : 0.0f) * in1[(i1)*9 + (r0)*3 + (r1)]);
      by_racc = by_racc + v;
    }
  }
  float* const part = reinterpret_cast<float*>(by_smem);
  part[tid] = by_racc;
  __syncthreads();
  if (by_g != 0 || !active) return;
  for (int g = 1; g < 8; ++g) {
    const float other = part[g * 32 + by_r];
    by_racc = by_racc + other;
  }
  const float acc = by_racc;
  out[(i1)*256 + (i2)*16 + (i3)] = (float)(by_min(by_max((acc + in2[(i1)]), 0.0f), 6.0f));
}
BY_KERNEL void __launch_bounds__(256) conv_k6(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  conv_k6_body(in0, in1, in2, out, by_this_block());
}

// ===== conv_k7 =====
BY_DEVICE void conv_k7_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 32;
  const int tid = threadIdx.x;
  const int tx = tid % 16;
  const int ty = tid / 16;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 16) * 16; by_blk /= 16;
  const int by_m0 = (by_blk % 12) * 4; by_blk /= 12;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  for (int kt = 0; kt < 1; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 32; e += 64) {
      const int rr = e % 4; const int kk = e / 4;
      const int gr = by_ar0 + rr; const int gk = kt * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in4[(i1)*8 + (r0)];
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 128; e += 64) {
      const int rr = e % 16; const int kk = e / 16;
      const int gr = by_br0 + rr; const int gk = kt * 8 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 16; by_rm /= 16;
        const int i2 = by_rm;
        const int r0 = gk;
        v = (in3[(i0)*2048 + (r0)*256 + (i2)*16 + (i3)] + (([&]() { float tf0_acc = 0.0f; BY_ROLLED for (int q0_0 = 0; q0_0 < 48; ++q0_0) { tf0_acc = tf0_acc + (in0[(i0)*12288 + (q0_0)*256 + (i2)*16 + (i3)] * in1[(r0)*48 + (q0_0)]); } return tf0_acc; }()) + in2[(r0)]));
      }
      by_bs[kk * 16 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 32;
    const float* const bs = by_bs + cur * 128;
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[1], b[1];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 4 + ty + (i) * 4];
      #pragma unroll
      for (int i = 0; i < 1; ++i) b[i] = bs[kk * 16 + tx + (i) * 16];
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
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 16;
      int by_en = gn;
      const int i3 = by_en % 16; by_en /= 16;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*256 + (i2)*16 + (i3)] = (float)(by_min(by_max((acc + in5[(i1)]), 0.0f), 6.0f));
    }
  }
}
BY_KERNEL void conv_k7(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ out) {
  conv_k7_body(in0, in1, in2, in3, in4, in5, out, by_this_block());
}

// ===== conv_k8 =====
BY_DEVICE void conv_k8_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 32;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 8) * 8; by_blk /= 8;
  const int by_m0 = (by_blk % 4) * 4; by_blk /= 4;
  const int by_ks = (int)(by_blk % 3); by_blk /= 3;
  const unsigned int by_tile = by_block.idx.x % 32u + by_block.idx.x / 96u * 32u;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 2;
  const int nloc = 6 - kt_begin < 2 ? 6 - kt_begin : 2;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 32; e += 32) {
      const int rr = e % 4; const int kk = e / 4;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in3[(i1)*48 + (r0)];
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 64; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 8; by_rm /= 8;
        const int i2 = by_rm;
        const int r0 = gk;
        v = by_min(by_max((([&]() { float tf0_acc = 0.0f; BY_ROLLED for (int q0_0 = 0; q0_0 < 3; ++q0_0) BY_ROLLED for (int q0_1 = 0; q0_1 < 3; ++q0_1) { const int tf0_0 = ((i2 * (2ll)) + q0_0); const int tf0_1 = ((i3 * (2ll)) + q0_1); tf0_acc = tf0_acc + ((((tf0_0 < (16ll)) && (tf0_1 < (16ll))) ? in0[(i0)*12288 + (r0)*256 + (tf0_0)*16 + (tf0_1)] : 0.0f) * in1[(r0)*9 + (q0_0)*3 + (q0_1)]); } return tf0_acc; }()) + in2[(r0)]), 0.0f), 6.0f);
      }
      by_bs[kk * 8 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 32;
    const float* const bs = by_bs + cur * 64;
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[1], b[1];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 4 + ty + (i) * 4];
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
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_ws[(((int)by_ks * 32 + by_tile) * 1 + i * 1 + j) * 32 + tid] = by_acc[i][j];
  __threadfence();   // this thread's partial sums are visible device-wide before the block arrives
  __syncthreads();
  int* const by_last = reinterpret_cast<int*>(by_smem);   // the stages are free: all reads are done
  if (tid == 0) *by_last = by_arrive(&by_block.arrivals[by_tile], 3u);
  __syncthreads();
  if (!*by_last) return;
  __threadfence();   // the other slices are read after their arrivals were seen
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 3; ++k)
    #pragma unroll
    for (int i = 0; i < 1; ++i)
      #pragma unroll
      for (int j = 0; j < 1; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 32 + by_tile) * 1 + i * 1 + j) * 32 + tid]);
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 4;
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 8;
      int by_en = gn;
      const int i3 = by_en % 8; by_en /= 8;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*64 + (i2)*8 + (i3)] = (float)((acc + in4[(i1)]));
    }
  }
}
BY_DEVICE_STATE unsigned int conv_k8_arrivals[32];
BY_KERNEL void conv_k8(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k8_body(in0, in1, in2, in3, in4, by_ws, out, by_this_block(conv_k8_arrivals));
}

// ===== conv_k9 =====
BY_DEVICE void conv_k9_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 64;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 8) * 8; by_blk /= 8;
  const int by_m0 = (by_blk % 24) * 4; by_blk /= 24;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  for (int kt = 0; kt < 1; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 64; e += 32) {
      const int rr = e % 4; const int kk = e / 4;
      const int gr = by_ar0 + rr; const int gk = kt * 16 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in1[(i1)*16 + (r0)];
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 128; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_br0 + rr; const int gk = kt * 16 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 8; by_rm /= 8;
        const int i2 = by_rm;
        const int r0 = gk;
        v = in0[(i0)*1024 + (r0)*64 + (i2)*8 + (i3)];
      }
      by_bs[kk * 8 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 64;
    const float* const bs = by_bs + cur * 128;
    #pragma unroll
    for (int kk = 0; kk < 16; ++kk) {
      float a[1], b[1];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 4 + ty + (i) * 4];
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
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 8;
      int by_en = gn;
      const int i3 = by_en % 8; by_en /= 8;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*64 + (i2)*8 + (i3)] = (float)(by_min(by_max((acc + in2[(i1)]), 0.0f), 6.0f));
    }
  }
}
BY_KERNEL void conv_k9(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  conv_k9_body(in0, in1, in2, out, by_this_block());
}

// ===== conv_k10 =====
BY_DEVICE void conv_k10_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 64;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 8) * 8; by_blk /= 8;
  const int by_m0 = (by_blk % 4) * 4; by_blk /= 4;
  const int by_ks = (int)(by_blk % 3); by_blk /= 3;
  const unsigned int by_tile = by_block.idx.x % 32u + by_block.idx.x / 96u * 32u;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 2;
  const int nloc = 6 - kt_begin < 2 ? 6 - kt_begin : 2;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 64; e += 32) {
      const int rr = e % 4; const int kk = e / 4;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 16 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in3[(i1)*96 + (r0)];
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 128; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 16 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 8; by_rm /= 8;
        const int i2 = by_rm;
        const int r0 = gk;
        v = by_min(by_max((([&]() { float tf0_acc = 0.0f; BY_ROLLED for (int q0_0 = 0; q0_0 < 3; ++q0_0) BY_ROLLED for (int q0_1 = 0; q0_1 < 3; ++q0_1) { const int tf0_0 = ((i2 + q0_0) - (1ll)); const int tf0_1 = ((i3 + q0_1) - (1ll)); tf0_acc = tf0_acc + ((((((tf0_0 >= (0ll)) && (tf0_0 < (8ll))) && (tf0_1 >= (0ll))) && (tf0_1 < (8ll))) ? in0[(i0)*6144 + (r0)*64 + (tf0_0)*8 + (tf0_1)] : 0.0f) * in1[(r0)*9 + (q0_0)*3 + (q0_1)]); } return tf0_acc; }()) + in2[(r0)]), 0.0f), 6.0f);
      }
      by_bs[kk * 8 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 64;
    const float* const bs = by_bs + cur * 128;
    #pragma unroll
    for (int kk = 0; kk < 16; ++kk) {
      float a[1], b[1];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 4 + ty + (i) * 4];
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
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_ws[(((int)by_ks * 32 + by_tile) * 1 + i * 1 + j) * 32 + tid] = by_acc[i][j];
  __threadfence();   // this thread's partial sums are visible device-wide before the block arrives
  __syncthreads();
  int* const by_last = reinterpret_cast<int*>(by_smem);   // the stages are free: all reads are done
  if (tid == 0) *by_last = by_arrive(&by_block.arrivals[by_tile], 3u);
  __syncthreads();
  if (!*by_last) return;
  __threadfence();   // the other slices are read after their arrivals were seen
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 3; ++k)
    #pragma unroll
    for (int i = 0; i < 1; ++i)
      #pragma unroll
      for (int j = 0; j < 1; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 32 + by_tile) * 1 + i * 1 + j) * 32 + tid]);
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 4;
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 8;
      int by_en = gn;
      const int i3 = by_en % 8; by_en /= 8;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*64 + (i2)*8 + (i3)] = (float)((in5[(i0)*1024 + (i1)*64 + (i2)*8 + (i3)] + (acc + in4[(i1)])));
    }
  }
}
BY_DEVICE_STATE unsigned int conv_k10_arrivals[32];
BY_KERNEL void conv_k10(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k10_body(in0, in1, in2, in3, in4, in5, by_ws, out, by_this_block(conv_k10_arrivals));
}

// ===== conv_k11 =====
BY_DEVICE void conv_k11_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 32;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 1) * 16; by_blk /= 1;
  const int by_m0 = (by_blk % 6) * 4; by_blk /= 6;
  const int by_ks = (int)(by_blk % 4); by_blk /= 4;
  const unsigned int by_tile = by_block.idx.x % 6u + by_block.idx.x / 24u * 6u;
  const int i0 = 0;
  float by_acc[1][2];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 2; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 3;
  const int nloc = 12 - kt_begin < 3 ? 12 - kt_begin : 3;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 32; e += 32) {
      const int rr = e % 4; const int kk = e / 4;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in3[(i1)*96 + (r0)];
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 128; e += 32) {
      const int rr = e % 16; const int kk = e / 16;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 4; by_rm /= 4;
        const int i2 = by_rm;
        const int r0 = gk;
        v = by_min(by_max((([&]() { float tf0_acc = 0.0f; BY_ROLLED for (int q0_0 = 0; q0_0 < 3; ++q0_0) BY_ROLLED for (int q0_1 = 0; q0_1 < 3; ++q0_1) { const int tf0_0 = ((i2 * (2ll)) + q0_0); const int tf0_1 = ((i3 * (2ll)) + q0_1); tf0_acc = tf0_acc + ((((tf0_0 < (8ll)) && (tf0_1 < (8ll))) ? in0[(i0)*6144 + (r0)*64 + (tf0_0)*8 + (tf0_1)] : 0.0f) * in1[(r0)*9 + (q0_0)*3 + (q0_1)]); } return tf0_acc; }()) + in2[(r0)]), 0.0f), 6.0f);
      }
      by_bs[kk * 16 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 32;
    const float* const bs = by_bs + cur * 128;
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[1], b[2];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 4 + ty + (i) * 4];
      #pragma unroll
      for (int i = 0; i < 2; ++i) b[i] = bs[kk * 16 + tx + (i) * 8];
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
    for (int j = 0; j < 2; ++j) by_ws[(((int)by_ks * 6 + by_tile) * 2 + i * 2 + j) * 32 + tid] = by_acc[i][j];
  __threadfence();   // this thread's partial sums are visible device-wide before the block arrives
  __syncthreads();
  int* const by_last = reinterpret_cast<int*>(by_smem);   // the stages are free: all reads are done
  if (tid == 0) *by_last = by_arrive(&by_block.arrivals[by_tile], 4u);
  __syncthreads();
  if (!*by_last) return;
  __threadfence();   // the other slices are read after their arrivals were seen
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 2; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 4; ++k)
    #pragma unroll
    for (int i = 0; i < 1; ++i)
      #pragma unroll
      for (int j = 0; j < 2; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 6 + by_tile) * 2 + i * 2 + j) * 32 + tid]);
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 4;
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int gn = by_n0 + tx + (j) * 8;
      int by_en = gn;
      const int i3 = by_en % 4; by_en /= 4;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*16 + (i2)*4 + (i3)] = (float)((acc + in4[(i1)]));
    }
  }
}
BY_DEVICE_STATE unsigned int conv_k11_arrivals[6];
BY_KERNEL void conv_k11(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k11_body(in0, in1, in2, in3, in4, by_ws, out, by_this_block(conv_k11_arrivals));
}

// ===== conv_k12 =====
BY_DEVICE void conv_k12_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 64;
  const int tid = threadIdx.x;
  const int tx = tid % 16;
  const int ty = tid / 16;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 1) * 16; by_blk /= 1;
  const int by_m0 = (by_blk % 36) * 4; by_blk /= 36;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  for (int kt = 0; kt < 2; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 64; e += 64) {
      const int rr = e % 4; const int kk = e / 4;
      const int gr = by_ar0 + rr; const int gk = kt * 16 + kk;
      float v = 0;
      if (gk < 24) {
        const int i1 = gr;
        const int r0 = gk;
        v = in1[(i1)*24 + (r0)];
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 256; e += 64) {
      const int rr = e % 16; const int kk = e / 16;
      const int gr = by_br0 + rr; const int gk = kt * 16 + kk;
      float v = 0;
      if (gk < 24) {
        int by_rm = gr;
        const int i3 = by_rm % 4; by_rm /= 4;
        const int i2 = by_rm;
        const int r0 = gk;
        v = in0[(i0)*384 + (r0)*16 + (i2)*4 + (i3)];
      }
      by_bs[kk * 16 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 64;
    const float* const bs = by_bs + cur * 256;
    #pragma unroll
    for (int kk = 0; kk < 16; ++kk) {
      float a[1], b[1];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 4 + ty + (i) * 4];
      #pragma unroll
      for (int i = 0; i < 1; ++i) b[i] = bs[kk * 16 + tx + (i) * 16];
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
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 16;
      int by_en = gn;
      const int i3 = by_en % 4; by_en /= 4;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*16 + (i2)*4 + (i3)] = (float)(by_min(by_max((acc + in2[(i1)]), 0.0f), 6.0f));
    }
  }
}
BY_KERNEL void conv_k12(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  conv_k12_body(in0, in1, in2, out, by_this_block());
}

// ===== conv_k13 =====
BY_DEVICE void conv_k13_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 64;
  const int tid = threadIdx.x;
  const int tx = tid % 4;
  const int ty = tid / 4;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 1) * 16; by_blk /= 1;
  const int by_m0 = (by_blk % 3) * 8; by_blk /= 3;
  const int by_ks = (int)(by_blk % 8); by_blk /= 8;
  const unsigned int by_tile = by_block.idx.x % 3u + by_block.idx.x / 24u * 3u;
  const int i0 = 0;
  float by_acc[1][4];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 4; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 3;
  const int nloc = 18 - kt_begin < 3 ? 18 - kt_begin : 3;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 64; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in3[(i1)*144 + (r0)];
      }
      by_as[kk * 8 + rr] = v;
    }
    for (int e = tid; e < 128; e += 32) {
      const int rr = e % 16; const int kk = e / 16;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 4; by_rm /= 4;
        const int i2 = by_rm;
        const int r0 = gk;
        v = by_min(by_max((([&]() { float tf0_acc = 0.0f; BY_ROLLED for (int q0_0 = 0; q0_0 < 3; ++q0_0) BY_ROLLED for (int q0_1 = 0; q0_1 < 3; ++q0_1) { const int tf0_0 = ((i2 + q0_0) - (1ll)); const int tf0_1 = ((i3 + q0_1) - (1ll)); tf0_acc = tf0_acc + ((((((tf0_0 >= (0ll)) && (tf0_0 < (4ll))) && (tf0_1 >= (0ll))) && (tf0_1 < (4ll))) ? in0[(i0)*2304 + (r0)*16 + (tf0_0)*4 + (tf0_1)] : 0.0f) * in1[(r0)*9 + (q0_0)*3 + (q0_1)]); } return tf0_acc; }()) + in2[(r0)]), 0.0f), 6.0f);
      }
      by_bs[kk * 16 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 64;
    const float* const bs = by_bs + cur * 128;
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[1], b[4];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 8 + ty + (i) * 8];
      #pragma unroll
      for (int g = 0; g < 1; ++g) {
        const float4 q = by_ld_shared_v4(bs + kk * 16 + g * 16 + tx * 4);
        b[4 * g] = q.x; b[4 * g + 1] = q.y; b[4 * g + 2] = q.z; b[4 * g + 3] = q.w;
      }
      #pragma unroll
      for (int i = 0; i < 1; ++i)
        #pragma unroll
        for (int j = 0; j < 4; ++j) by_acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 4; ++j) by_ws[(((int)by_ks * 3 + by_tile) * 4 + i * 4 + j) * 32 + tid] = by_acc[i][j];
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
    for (int j = 0; j < 4; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 8; ++k)
    #pragma unroll
    for (int i = 0; i < 1; ++i)
      #pragma unroll
      for (int j = 0; j < 4; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 3 + by_tile) * 4 + i * 4 + j) * 32 + tid]);
  const bool by_out_aligned = ((unsigned long long)(out) & 15ull) == 0ull;
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 8;
    const int i1 = gm;
    float* const by_orow = out + ((i1)*16);
    #pragma unroll
    for (int g = 0; g < 1; ++g) {
      const int gn0 = by_n0 + g * 16 + tx * 4;
      float by_ov[4];
      {
        const int gn = gn0 + 0;
        int by_en = gn;
        const int i3 = by_en % 4; by_en /= 4;
        const int i2 = by_en;
        const float acc = by_acc[i][4 * g + 0];
        by_ov[0] = (float)((in5[(i0)*384 + (i1)*16 + (i2)*4 + (i3)] + (acc + in4[(i1)])));
      }
      {
        const int gn = gn0 + 1;
        int by_en = gn;
        const int i3 = by_en % 4; by_en /= 4;
        const int i2 = by_en;
        const float acc = by_acc[i][4 * g + 1];
        by_ov[1] = (float)((in5[(i0)*384 + (i1)*16 + (i2)*4 + (i3)] + (acc + in4[(i1)])));
      }
      {
        const int gn = gn0 + 2;
        int by_en = gn;
        const int i3 = by_en % 4; by_en /= 4;
        const int i2 = by_en;
        const float acc = by_acc[i][4 * g + 2];
        by_ov[2] = (float)((in5[(i0)*384 + (i1)*16 + (i2)*4 + (i3)] + (acc + in4[(i1)])));
      }
      {
        const int gn = gn0 + 3;
        int by_en = gn;
        const int i3 = by_en % 4; by_en /= 4;
        const int i2 = by_en;
        const float acc = by_acc[i][4 * g + 3];
        by_ov[3] = (float)((in5[(i0)*384 + (i1)*16 + (i2)*4 + (i3)] + (acc + in4[(i1)])));
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
BY_DEVICE_STATE unsigned int conv_k13_arrivals[3];
BY_KERNEL void conv_k13(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k13_body(in0, in1, in2, in3, in4, in5, by_ws, out, by_this_block(conv_k13_arrivals));
}

// ===== conv_k14 =====
BY_DEVICE void conv_k14_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 64;
  const int tid = threadIdx.x;
  const int tx = tid % 4;
  const int ty = tid / 4;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 1) * 16; by_blk /= 1;
  const int by_m0 = (by_blk % 4) * 8; by_blk /= 4;
  const int by_ks = (int)(by_blk % 8); by_blk /= 8;
  const unsigned int by_tile = by_block.idx.x % 4u + by_block.idx.x / 32u * 4u;
  const int i0 = 0;
  float by_acc[1][4];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 4; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 3;
  const int nloc = 18 - kt_begin < 3 ? 18 - kt_begin : 3;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 64; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in3[(i1)*144 + (r0)];
      }
      by_as[kk * 8 + rr] = v;
    }
    for (int e = tid; e < 128; e += 32) {
      const int rr = e % 16; const int kk = e / 16;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 4; by_rm /= 4;
        const int i2 = by_rm;
        const int r0 = gk;
        v = by_min(by_max((([&]() { float tf0_acc = 0.0f; BY_ROLLED for (int q0_0 = 0; q0_0 < 3; ++q0_0) BY_ROLLED for (int q0_1 = 0; q0_1 < 3; ++q0_1) { const int tf0_0 = ((i2 + q0_0) - (1ll)); const int tf0_1 = ((i3 + q0_1) - (1ll)); tf0_acc = tf0_acc + ((((((tf0_0 >= (0ll)) && (tf0_0 < (4ll))) && (tf0_1 >= (0ll))) && (tf0_1 < (4ll))) ? in0[(i0)*2304 + (r0)*16 + (tf0_0)*4 + (tf0_1)] : 0.0f) * in1[(r0)*9 + (q0_0)*3 + (q0_1)]); } return tf0_acc; }()) + in2[(r0)]), 0.0f), 6.0f);
      }
      by_bs[kk * 16 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 64;
    const float* const bs = by_bs + cur * 128;
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[1], b[4];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 8 + ty + (i) * 8];
      #pragma unroll
      for (int g = 0; g < 1; ++g) {
        const float4 q = by_ld_shared_v4(bs + kk * 16 + g * 16 + tx * 4);
        b[4 * g] = q.x; b[4 * g + 1] = q.y; b[4 * g + 2] = q.z; b[4 * g + 3] = q.w;
      }
      #pragma unroll
      for (int i = 0; i < 1; ++i)
        #pragma unroll
        for (int j = 0; j < 4; ++j) by_acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 4; ++j) by_ws[(((int)by_ks * 4 + by_tile) * 4 + i * 4 + j) * 32 + tid] = by_acc[i][j];
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
    for (int j = 0; j < 4; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 8; ++k)
    #pragma unroll
    for (int i = 0; i < 1; ++i)
      #pragma unroll
      for (int j = 0; j < 4; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 4 + by_tile) * 4 + i * 4 + j) * 32 + tid]);
  const bool by_out_aligned = ((unsigned long long)(out) & 15ull) == 0ull;
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 8;
    const int i1 = gm;
    float* const by_orow = out + ((i1)*16);
    #pragma unroll
    for (int g = 0; g < 1; ++g) {
      const int gn0 = by_n0 + g * 16 + tx * 4;
      float by_ov[4];
      {
        const int gn = gn0 + 0;
        int by_en = gn;
        const int i3 = by_en % 4; by_en /= 4;
        const int i2 = by_en;
        const float acc = by_acc[i][4 * g + 0];
        by_ov[0] = (float)((acc + in4[(i1)]));
      }
      {
        const int gn = gn0 + 1;
        int by_en = gn;
        const int i3 = by_en % 4; by_en /= 4;
        const int i2 = by_en;
        const float acc = by_acc[i][4 * g + 1];
        by_ov[1] = (float)((acc + in4[(i1)]));
      }
      {
        const int gn = gn0 + 2;
        int by_en = gn;
        const int i3 = by_en % 4; by_en /= 4;
        const int i2 = by_en;
        const float acc = by_acc[i][4 * g + 2];
        by_ov[2] = (float)((acc + in4[(i1)]));
      }
      {
        const int gn = gn0 + 3;
        int by_en = gn;
        const int i3 = by_en % 4; by_en /= 4;
        const int i2 = by_en;
        const float acc = by_acc[i][4 * g + 3];
        by_ov[3] = (float)((acc + in4[(i1)]));
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
BY_DEVICE_STATE unsigned int conv_k14_arrivals[4];
BY_KERNEL void conv_k14(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k14_body(in0, in1, in2, in3, in4, by_ws, out, by_this_block(conv_k14_arrivals));
}

// ===== conv_k15 =====
BY_DEVICE void conv_k15_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 64;
  const int tid = threadIdx.x;
  const int tx = tid % 16;
  const int ty = tid / 16;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 1) * 16; by_blk /= 1;
  const int by_m0 = (by_blk % 48) * 4; by_blk /= 48;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  for (int kt = 0; kt < 2; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 64; e += 64) {
      const int rr = e % 4; const int kk = e / 4;
      const int gr = by_ar0 + rr; const int gk = kt * 16 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in1[(i1)*32 + (r0)];
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 256; e += 64) {
      const int rr = e % 16; const int kk = e / 16;
      const int gr = by_br0 + rr; const int gk = kt * 16 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 4; by_rm /= 4;
        const int i2 = by_rm;
        const int r0 = gk;
        v = in0[(i0)*512 + (r0)*16 + (i2)*4 + (i3)];
      }
      by_bs[kk * 16 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 64;
    const float* const bs = by_bs + cur * 256;
    #pragma unroll
    for (int kk = 0; kk < 16; ++kk) {
      float a[1], b[1];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 4 + ty + (i) * 4];
      #pragma unroll
      for (int i = 0; i < 1; ++i) b[i] = bs[kk * 16 + tx + (i) * 16];
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
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 16;
      int by_en = gn;
      const int i3 = by_en % 4; by_en /= 4;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*16 + (i2)*4 + (i3)] = (float)(by_min(by_max((acc + in2[(i1)]), 0.0f), 6.0f));
    }
  }
}
BY_KERNEL void conv_k15(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  conv_k15_body(in0, in1, in2, out, by_this_block());
}

// ===== conv_k16 =====
BY_DEVICE void conv_k16_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 64;
  const int tid = threadIdx.x;
  const int tx = tid % 4;
  const int ty = tid / 4;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 1) * 16; by_blk /= 1;
  const int by_m0 = (by_blk % 4) * 8; by_blk /= 4;
  const int by_ks = (int)(by_blk % 8); by_blk /= 8;
  const unsigned int by_tile = by_block.idx.x % 4u + by_block.idx.x / 32u * 4u;
  const int i0 = 0;
  float by_acc[1][4];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 4; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 3;
  const int nloc = 24 - kt_begin < 3 ? 24 - kt_begin : 3;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 64; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in3[(i1)*192 + (r0)];
      }
      by_as[kk * 8 + rr] = v;
    }
    for (int e = tid; e < 128; e += 32) {
      const int rr = e % 16; const int kk = e / 16;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 4; by_rm /= 4;
        const int i2 = by_rm;
        const int r0 = gk;
        v = by_min(by_max((([&]() { float tf0_acc = 0.0f; BY_ROLLED for (int q0_0 = 0; q0_0 < 3; ++q0_0) BY_ROLLED for (int q0_1 = 0; q0_1 < 3; ++q0_1) { const int tf0_0 = ((i2 + q0_0) - (1ll)); const int tf0_1 = ((i3 + q0_1) - (1ll)); tf0_acc = tf0_acc + ((((((tf0_0 >= (0ll)) && (tf0_0 < (4ll))) && (tf0_1 >= (0ll))) && (tf0_1 < (4ll))) ? in0[(i0)*3072 + (r0)*16 + (tf0_0)*4 + (tf0_1)] : 0.0f) * in1[(r0)*9 + (q0_0)*3 + (q0_1)]); } return tf0_acc; }()) + in2[(r0)]), 0.0f), 6.0f);
      }
      by_bs[kk * 16 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 64;
    const float* const bs = by_bs + cur * 128;
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[1], b[4];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 8 + ty + (i) * 8];
      #pragma unroll
      for (int g = 0; g < 1; ++g) {
        const float4 q = by_ld_shared_v4(bs + kk * 16 + g * 16 + tx * 4);
        b[4 * g] = q.x; b[4 * g + 1] = q.y; b[4 * g + 2] = q.z; b[4 * g + 3] = q.w;
      }
      #pragma unroll
      for (int i = 0; i < 1; ++i)
        #pragma unroll
        for (int j = 0; j < 4; ++j) by_acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 4; ++j) by_ws[(((int)by_ks * 4 + by_tile) * 4 + i * 4 + j) * 32 + tid] = by_acc[i][j];
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
    for (int j = 0; j < 4; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 8; ++k)
    #pragma unroll
    for (int i = 0; i < 1; ++i)
      #pragma unroll
      for (int j = 0; j < 4; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 4 + by_tile) * 4 + i * 4 + j) * 32 + tid]);
  const bool by_out_aligned = ((unsigned long long)(out) & 15ull) == 0ull;
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 8;
    const int i1 = gm;
    float* const by_orow = out + ((i1)*16);
    #pragma unroll
    for (int g = 0; g < 1; ++g) {
      const int gn0 = by_n0 + g * 16 + tx * 4;
      float by_ov[4];
      {
        const int gn = gn0 + 0;
        int by_en = gn;
        const int i3 = by_en % 4; by_en /= 4;
        const int i2 = by_en;
        const float acc = by_acc[i][4 * g + 0];
        by_ov[0] = (float)((in5[(i0)*512 + (i1)*16 + (i2)*4 + (i3)] + (acc + in4[(i1)])));
      }
      {
        const int gn = gn0 + 1;
        int by_en = gn;
        const int i3 = by_en % 4; by_en /= 4;
        const int i2 = by_en;
        const float acc = by_acc[i][4 * g + 1];
        by_ov[1] = (float)((in5[(i0)*512 + (i1)*16 + (i2)*4 + (i3)] + (acc + in4[(i1)])));
      }
      {
        const int gn = gn0 + 2;
        int by_en = gn;
        const int i3 = by_en % 4; by_en /= 4;
        const int i2 = by_en;
        const float acc = by_acc[i][4 * g + 2];
        by_ov[2] = (float)((in5[(i0)*512 + (i1)*16 + (i2)*4 + (i3)] + (acc + in4[(i1)])));
      }
      {
        const int gn = gn0 + 3;
        int by_en = gn;
        const int i3 = by_en % 4; by_en /= 4;
        const int i2 = by_en;
        const float acc = by_acc[i][4 * g + 3];
        by_ov[3] = (float)((in5[(i0)*512 + (i1)*16 + (i2)*4 + (i3)] + (acc + in4[(i1)])));
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
BY_DEVICE_STATE unsigned int conv_k16_arrivals[4];
BY_KERNEL void conv_k16(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k16_body(in0, in1, in2, in3, in4, in5, by_ws, out, by_this_block(conv_k16_arrivals));
}

// ===== conv_k17 =====
BY_DEVICE void conv_k17_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 64;
  const int tid = threadIdx.x;
  const int tx = tid % 4;
  const int ty = tid / 4;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 1) * 8; by_blk /= 1;
  const int by_m0 = (by_blk % 7) * 8; by_blk /= 7;
  const int by_ks = (int)(by_blk % 8); by_blk /= 8;
  const unsigned int by_tile = by_block.idx.x % 7u + by_block.idx.x / 56u * 7u;
  const int i0 = 0;
  float by_acc[1][2];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 2; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 3;
  const int nloc = 24 - kt_begin < 3 ? 24 - kt_begin : 3;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 64; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in3[(i1)*192 + (r0)];
      }
      by_as[kk * 8 + rr] = v;
    }
    for (int e = tid; e < 64; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      if (gr < 4) {
        int by_rm = gr;
        const int i3 = by_rm % 2; by_rm /= 2;
        const int i2 = by_rm;
        const int r0 = gk;
        v = by_min(by_max((([&]() { float tf0_acc = 0.0f; BY_ROLLED for (int q0_0 = 0; q0_0 < 3; ++q0_0) BY_ROLLED for (int q0_1 = 0; q0_1 < 3; ++q0_1) { const int tf0_0 = ((i2 * (2ll)) + q0_0); const int tf0_1 = ((i3 * (2ll)) + q0_1); tf0_acc = tf0_acc + ((((tf0_0 < (4ll)) && (tf0_1 < (4ll))) ? in0[(i0)*3072 + (r0)*16 + (tf0_0)*4 + (tf0_1)] : 0.0f) * in1[(r0)*9 + (q0_0)*3 + (q0_1)]); } return tf0_acc; }()) + in2[(r0)]), 0.0f), 6.0f);
      }
      by_bs[kk * 8 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 64;
    const float* const bs = by_bs + cur * 64;
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[1], b[2];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 8 + ty + (i) * 8];
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
    for (int j = 0; j < 2; ++j) by_ws[(((int)by_ks * 7 + by_tile) * 2 + i * 2 + j) * 32 + tid] = by_acc[i][j];
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
    for (int j = 0; j < 2; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 8; ++k)
    #pragma unroll
    for (int i = 0; i < 1; ++i)
      #pragma unroll
      for (int j = 0; j < 2; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 7 + by_tile) * 2 + i * 2 + j) * 32 + tid]);
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 8;
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int gn = by_n0 + tx + (j) * 4;
      if (gn >= 4) continue;
      int by_en = gn;
      const int i3 = by_en % 2; by_en /= 2;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*4 + (i2)*2 + (i3)] = (float)((acc + in4[(i1)]));
    }
  }
}
BY_DEVICE_STATE unsigned int conv_k17_arrivals[7];
BY_KERNEL void conv_k17(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k17_body(in0, in1, in2, in3, in4, by_ws, out, by_this_block(conv_k17_arrivals));
}

// ===== conv_k18 =====
BY_DEVICE void conv_k18_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 64;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 1) * 8; by_blk /= 1;
  const int by_m0 = (by_blk % 84) * 4; by_blk /= 84;
  const int by_ks = (int)(by_blk % 2); by_blk /= 2;
  const unsigned int by_tile = by_block.idx.x % 84u + by_block.idx.x / 168u * 84u;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 2;
  const int nloc = 4 - kt_begin < 2 ? 4 - kt_begin : 2;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 64; e += 32) {
      const int rr = e % 4; const int kk = e / 4;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 16 + kk;
      float v = 0;
      if (gk < 56) {
        const int i1 = gr;
        const int r0 = gk;
        v = in1[(i1)*56 + (r0)];
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 128; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 16 + kk;
      float v = 0;
      if (gr < 4 && gk < 56) {
        int by_rm = gr;
        const int i3 = by_rm % 2; by_rm /= 2;
        const int i2 = by_rm;
        const int r0 = gk;
        v = in0[(i0)*224 + (r0)*4 + (i2)*2 + (i3)];
      }
      by_bs[kk * 8 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 64;
    const float* const bs = by_bs + cur * 128;
    #pragma unroll
    for (int kk = 0; kk < 16; ++kk) {
      float a[1], b[1];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 4 + ty + (i) * 4];
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
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_ws[(((int)by_ks * 84 + by_tile) * 1 + i * 1 + j) * 32 + tid] = by_acc[i][j];
  __threadfence();   // this thread's partial sums are visible device-wide before the block arrives
  __syncthreads();
  int* const by_last = reinterpret_cast<int*>(by_smem);   // the stages are free: all reads are done
  if (tid == 0) *by_last = by_arrive(&by_block.arrivals[by_tile], 2u);
  __syncthreads();
  if (!*by_last) return;
  __threadfence();   // the other slices are read after their arrivals were seen
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 2; ++k)
    #pragma unroll
    for (int i = 0; i < 1; ++i)
      #pragma unroll
      for (int j = 0; j < 1; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 84 + by_tile) * 1 + i * 1 + j) * 32 + tid]);
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 4;
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 8;
      if (gn >= 4) continue;
      int by_en = gn;
      const int i3 = by_en % 2; by_en /= 2;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*4 + (i2)*2 + (i3)] = (float)(by_min(by_max((acc + in2[(i1)]), 0.0f), 6.0f));
    }
  }
}
BY_DEVICE_STATE unsigned int conv_k18_arrivals[84];
BY_KERNEL void conv_k18(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k18_body(in0, in1, in2, by_ws, out, by_this_block(conv_k18_arrivals));
}

// ===== conv_k19 =====
BY_DEVICE void conv_k19_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 32;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 1) * 8; by_blk /= 1;
  const int by_m0 = (by_blk % 14) * 4; by_blk /= 14;
  const int by_ks = (int)(by_blk % 16); by_blk /= 16;
  const unsigned int by_tile = by_block.idx.x % 14u + by_block.idx.x / 224u * 14u;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 3;
  const int nloc = 42 - kt_begin < 3 ? 42 - kt_begin : 3;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 32; e += 32) {
      const int rr = e % 4; const int kk = e / 4;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in3[(i1)*336 + (r0)];
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 64; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      if (gr < 4) {
        int by_rm = gr;
        const int i3 = by_rm % 2; by_rm /= 2;
        const int i2 = by_rm;
        const int r0 = gk;
        v = by_min(by_max((([&]() { float tf0_acc = 0.0f; BY_ROLLED for (int q0_0 = 0; q0_0 < 3; ++q0_0) BY_ROLLED for (int q0_1 = 0; q0_1 < 3; ++q0_1) { const int tf0_0 = ((i2 + q0_0) - (1ll)); const int tf0_1 = ((i3 + q0_1) - (1ll)); tf0_acc = tf0_acc + ((((((tf0_0 >= (0ll)) && (tf0_0 < (2ll))) && (tf0_1 >= (0ll))) && (tf0_1 < (2ll))) ? in0[(i0)*1344 + (r0)*4 + (tf0_0)*2 + (tf0_1)] : 0.0f) * in1[(r0)*9 + (q0_0)*3 + (q0_1)]); } return tf0_acc; }()) + in2[(r0)]), 0.0f), 6.0f);
      }
      by_bs[kk * 8 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 32;
    const float* const bs = by_bs + cur * 64;
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[1], b[1];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 4 + ty + (i) * 4];
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
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_ws[(((int)by_ks * 14 + by_tile) * 1 + i * 1 + j) * 32 + tid] = by_acc[i][j];
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
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 16; ++k)
    #pragma unroll
    for (int i = 0; i < 1; ++i)
      #pragma unroll
      for (int j = 0; j < 1; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 14 + by_tile) * 1 + i * 1 + j) * 32 + tid]);
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 4;
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 8;
      if (gn >= 4) continue;
      int by_en = gn;
      const int i3 = by_en % 2; by_en /= 2;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*4 + (i2)*2 + (i3)] = (float)((in5[(i0)*224 + (i1)*4 + (i2)*2 + (i3)] + (acc + in4[(i1)])));
    }
  }
}
BY_DEVICE_STATE unsigned int conv_k19_arrivals[14];
BY_KERNEL void conv_k19(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k19_body(in0, in1, in2, in3, in4, in5, by_ws, out, by_this_block(conv_k19_arrivals));
}

// ===== conv_k20 =====
BY_DEVICE void conv_k20_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 64;
  const int tid = threadIdx.x;
  const int tx = tid % 4;
  const int ty = tid / 4;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 1) * 8; by_blk /= 1;
  const int by_m0 = (by_blk % 14) * 8; by_blk /= 14;
  const int by_ks = (int)(by_blk % 16); by_blk /= 16;
  const unsigned int by_tile = by_block.idx.x % 14u + by_block.idx.x / 224u * 14u;
  const int i0 = 0;
  float by_acc[1][2];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 2; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 3;
  const int nloc = 42 - kt_begin < 3 ? 42 - kt_begin : 3;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 64; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in3[(i1)*336 + (r0)];
      }
      by_as[kk * 8 + rr] = v;
    }
    for (int e = tid; e < 64; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      if (gr < 4) {
        int by_rm = gr;
        const int i3 = by_rm % 2; by_rm /= 2;
        const int i2 = by_rm;
        const int r0 = gk;
        v = by_min(by_max((([&]() { float tf0_acc = 0.0f; BY_ROLLED for (int q0_0 = 0; q0_0 < 3; ++q0_0) BY_ROLLED for (int q0_1 = 0; q0_1 < 3; ++q0_1) { const int tf0_0 = ((i2 + q0_0) - (1ll)); const int tf0_1 = ((i3 + q0_1) - (1ll)); tf0_acc = tf0_acc + ((((((tf0_0 >= (0ll)) && (tf0_0 < (2ll))) && (tf0_1 >= (0ll))) && (tf0_1 < (2ll))) ? in0[(i0)*1344 + (r0)*4 + (tf0_0)*2 + (tf0_1)] : 0.0f) * in1[(r0)*9 + (q0_0)*3 + (q0_1)]); } return tf0_acc; }()) + in2[(r0)]), 0.0f), 6.0f);
      }
      by_bs[kk * 8 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 64;
    const float* const bs = by_bs + cur * 64;
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[1], b[2];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 8 + ty + (i) * 8];
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
    for (int j = 0; j < 2; ++j) by_ws[(((int)by_ks * 14 + by_tile) * 2 + i * 2 + j) * 32 + tid] = by_acc[i][j];
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
      for (int j = 0; j < 2; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 14 + by_tile) * 2 + i * 2 + j) * 32 + tid]);
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 8;
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int gn = by_n0 + tx + (j) * 4;
      if (gn >= 4) continue;
      int by_en = gn;
      const int i3 = by_en % 2; by_en /= 2;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*4 + (i2)*2 + (i3)] = (float)((acc + in4[(i1)]));
    }
  }
}
BY_DEVICE_STATE unsigned int conv_k20_arrivals[14];
BY_KERNEL void conv_k20(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k20_body(in0, in1, in2, in3, in4, by_ws, out, by_this_block(conv_k20_arrivals));
}

// ===== conv_k21 =====
BY_DEVICE void conv_k21_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 512;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 1) * 8; by_blk /= 1;
  const int by_m0 = (by_blk % 80) * 16; by_blk /= 80;
  const int by_ks = (int)(by_blk % 2); by_blk /= 2;
  const unsigned int by_tile = by_block.idx.x % 80u + by_block.idx.x / 160u * 80u;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 2;
  const int nloc = 4 - kt_begin < 2 ? 4 - kt_begin : 2;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 512; e += 128) {
      const int rr = e % 16; const int kk = e / 16;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 32 + kk;
      float v = 0;
      if (gk < 112) {
        const int i1 = gr;
        const int r0 = gk;
        v = in1[(i1)*112 + (r0)];
      }
      by_as[kk * 16 + rr] = v;
    }
    for (int e = tid; e < 256; e += 128) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 32 + kk;
      float v = 0;
      if (gr < 4 && gk < 112) {
        int by_rm = gr;
        const int i3 = by_rm % 2; by_rm /= 2;
        const int i2 = by_rm;
        const int r0 = gk;
        v = in0[(i0)*448 + (r0)*4 + (i2)*2 + (i3)];
      }
      by_bs[kk * 8 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 512;
    const float* const bs = by_bs + cur * 256;
    #pragma unroll
    for (int kk = 0; kk < 32; ++kk) {
      float a[1], b[1];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 16 + ty + (i) * 16];
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
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_ws[(((int)by_ks * 80 + by_tile) * 1 + i * 1 + j) * 128 + tid] = by_acc[i][j];
  __threadfence();   // this thread's partial sums are visible device-wide before the block arrives
  __syncthreads();
  int* const by_last = reinterpret_cast<int*>(by_smem);   // the stages are free: all reads are done
  if (tid == 0) *by_last = by_arrive(&by_block.arrivals[by_tile], 2u);
  __syncthreads();
  if (!*by_last) return;
  __threadfence();   // the other slices are read after their arrivals were seen
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 2; ++k)
    #pragma unroll
    for (int i = 0; i < 1; ++i)
      #pragma unroll
      for (int j = 0; j < 1; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 80 + by_tile) * 1 + i * 1 + j) * 128 + tid]);
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 16;
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 8;
      if (gn >= 4) continue;
      int by_en = gn;
      const int i3 = by_en % 2; by_en /= 2;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*4 + (i2)*2 + (i3)] = (float)(by_min(by_max((acc + in2[(i1)]), 0.0f), 6.0f));
    }
  }
}
BY_DEVICE_STATE unsigned int conv_k21_arrivals[80];
BY_KERNEL void conv_k21(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k21_body(in0, in1, in2, by_ws, out, by_this_block(conv_k21_arrivals));
}

// ===== reducemean_k0 =====
BY_DEVICE void reducemean_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const int tid = threadIdx.x;
  const int lane = tid % 4;
  const int row = (int)by_block.idx.x * 32 + tid / 4;
  const bool active = row < 1280;
  float by_racc = 0;
  const int i0 = 0;
  const int i2 = 0;
  const int i3 = 0;
  const int rowc = active ? row : 0;
  const int i1 = rowc;
  if (active) for (int k = lane; k < 4; k += 4) {
    int by_rk = k;
    const int r1 = by_rk % 2; by_rk /= 2;
    const int r0 = by_rk;
    const float v = in0[(i0)*5120 + (i1)*4 + (r0)*2 + (r1)];
    by_racc = by_racc + v;
  }
  for (int o = 2; o > 0; o >>= 1) {
    const float other = __shfl_xor_sync(0xFFFFFFFFu, by_racc, o);
    by_racc = by_racc + other;
  }
  if (active && lane == 0) {
    const float acc = by_racc;
    out[(i1)] = (float)((acc / 4.0f));
  }
}
BY_KERNEL void __launch_bounds__(128) reducemean_k0(const float* __restrict__ in0, float* __restrict__ out) {
  reducemean_k0_body(in0, out, by_this_block());
}
