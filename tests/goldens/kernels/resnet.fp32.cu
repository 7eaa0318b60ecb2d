// golden: resnet.onnx h100 fp32
// 15 launches, 15 distinct kernels
// launch 0: conv_k0 grid=[256, 1, 1] block=[128, 1, 1] shared=2688 params=[float float float out:float out:float]
// launch 1: maxpool_k0 grid=[256, 1, 1] block=[256, 1, 1] shared=1024 params=[float out:float]
// launch 2: conv_k1 grid=[64, 1, 1] block=[32, 1, 1] shared=768 params=[float float float out:float]
// launch 3: conv_k2 grid=[256, 1, 1] block=[32, 1, 1] shared=384 params=[float float float out:float out:float]
// launch 4: conv_k3 grid=[256, 1, 1] block=[32, 1, 1] shared=384 params=[float float float float out:float]
// launch 5: conv_k4 grid=[64, 1, 1] block=[64, 1, 1] shared=1280 params=[float float float out:float]
// launch 6: conv_k5 grid=[256, 1, 1] block=[32, 1, 1] shared=384 params=[float float float out:float out:float]
// launch 7: conv_k6 grid=[16, 1, 1] block=[256, 1, 1] shared=2560 params=[float float float float float float out:float]
// launch 8: conv_k7 grid=[256, 1, 1] block=[32, 1, 1] shared=384 params=[float float float out:float out:float]
// launch 9: conv_k8 grid=[256, 1, 1] block=[32, 1, 1] shared=384 params=[float float float out:float out:float]
// launch 10: conv_k9 grid=[256, 1, 1] block=[32, 1, 1] shared=384 params=[float float float float float float out:float out:float]
// launch 11: conv_k10 grid=[256, 1, 1] block=[32, 1, 1] shared=384 params=[float float float out:float out:float]
// launch 12: conv_k11 grid=[256, 1, 1] block=[32, 1, 1] shared=896 params=[float float float out:float out:float]
// launch 13: conv_k12 grid=[256, 1, 1] block=[32, 1, 1] shared=512 params=[float float float float float float out:float out:float]
// launch 14: reducemean_k0 grid=[8, 1, 1] block=[128, 1, 1] shared=0 params=[float out:float]

// ===== conv_k0 =====
BY_DEVICE void conv_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 160;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 16) * 64; by_blk /= 16;
  const int by_m0 = (by_blk % 2) * 16; by_blk /= 2;
  const int by_ks = (int)(by_blk % 8); by_blk /= 8;
  const unsigned int by_tile = by_block.idx.x % 32u + by_block.idx.x / 256u * 32u;
  const int i0 = 0;
  float by_acc[1][8];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 8; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 3;
  const int nloc = 19 - kt_begin < 3 ? 19 - kt_begin : 3;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 128; e += 128) {
      const int kk = e % 8; const int rr = e / 8;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      if (gk < 147) {
        const int i1 = gr;
        int by_rk = gk;
        const int r2 = by_rk % 7; by_rk /= 7;
        const int r1 = by_rk % 7; by_rk /= 7;
        const int r0 = by_rk;
        v = in1[(i1)*147 + (r0)*49 + (r1)*7 + (r2)];
      }
      by_as[kk * 20 + rr] = v;
    }
    for (int e = tid; e < 512; e += 128) {
      const int rr = e % 64; const int kk = e / 64;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      if (gk < 147) {
        int by_rm = gr;
        const int i3 = by_rm % 32; by_rm /= 32;
        const int i2 = by_rm;
        int by_rk = gk;
        const int r2 = by_rk % 7; by_rk /= 7;
        const int r1 = by_rk % 7; by_rk /= 7;
        const int r0 = by_rk;
        const int t0 = (((i2 * (2ll)) + r1) - (3ll));
        const int t1 = (((i3 * (2ll)) + r2) - (3ll));
        v = (((((t0 >= (0ll)) && (t0 < (64ll))) && (t1 >= (0ll))) && (t1 < (64ll))) ? in0[(i0)*12288 + (r0)*4096 + (t0)*64 + (t1)] : 0.0f);
      }
      by_bs[kk * 64 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 160;
    const float* const bs = by_bs + cur * 512;
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[1], b[8];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 20 + ty + (i) * 16];
      #pragma unroll
      for (int g = 0; g < 2; ++g) {
        const float4 q = by_ld_shared_v4(bs + kk * 64 + g * 32 + tx * 4);
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
    for (int j = 0; j < 8; ++j) by_ws[(((int)by_ks * 32 + by_tile) * 8 + i * 8 + j) * 128 + tid] = by_acc[i][j];
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
      for (int j = 0; j < 8; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 32 + by_tile) * 8 + i * 8 + j) * 128 + tid]);
  const bool by_out_aligned = ((unsigned long long)(out) & 15ull) == 0ull;
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 16;
    const int i1 = gm;
    float* const by_orow = out + ((i1)*1024);
    #pragma unroll
    for (int g = 0; g < 2; ++g) {
      const int gn0 = by_n0 + g * 32 + tx * 4;
      float by_ov[4];
      {
        const int gn = gn0 + 0;
        int by_en = gn;
        const int i3 = by_en % 32; by_en /= 32;
        const int i2 = by_en;
        const float acc = by_acc[i][4 * g + 0];
        by_ov[0] = (float)(by_max((acc + in2[(i1)]), 0.0f));
      }
      {
        const int gn = gn0 + 1;
        int by_en = gn;
        const int i3 = by_en % 32; by_en /= 32;
        const int i2 = by_en;
        const float acc = by_acc[i][4 * g + 1];
        by_ov[1] = (float)(by_max((acc + in2[(i1)]), 0.0f));
      }
      {
        const int gn = gn0 + 2;
        int by_en = gn;
        const int i3 = by_en % 32; by_en /= 32;
        const int i2 = by_en;
        const float acc = by_acc[i][4 * g + 2];
        by_ov[2] = (float)(by_max((acc + in2[(i1)]), 0.0f));
      }
      {
        const int gn = gn0 + 3;
        int by_en = gn;
        const int i3 = by_en % 32; by_en /= 32;
        const int i2 = by_en;
        const float acc = by_acc[i][4 * g + 3];
        by_ov[3] = (float)(by_max((acc + in2[(i1)]), 0.0f));
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
BY_DEVICE_STATE unsigned int conv_k0_arrivals[32];
BY_KERNEL void conv_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k0_body(in0, in1, in2, by_ws, out, by_this_block(conv_k0_arrivals));
}

// ===== maxpool_k0 =====
BY_DEVICE void maxpool_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  const int tid = threadIdx.x;
  const int by_r = tid % 32, by_g = tid / 32;
  const int row = (int)by_block.idx.x * 32 + by_r;
  const bool active = row < 8192;
  float by_racc = 0;
  int have = 0;
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
      const int t0 = (((i2 * (2ll)) + r0) - (1ll));
      const int t1 = (((i3 * (2ll)) + r1) - (1ll));
      const float v = (((t0 >= (0ll)) && (t1 >= (0ll))) ? in0[(i0)*32768 + (i1)*1024 + (t0)*32 + (t1)] : (-by_inf_f()));
      by_racc = have ? by_max(by_racc, v) : v; have = 1;
    }
  }
  (void)have;
  float* const part = reinterpret_cast<float*>(by_smem);
  part[tid] = by_racc;
  __syncthreads();
  if (by_g != 0 || !active) return;
  for (int g = 1; g < 8; ++g) {
    const float other = part[g * 32 + by_r];
    by_racc = by_max(by_racc, other);
  }
  const float acc = by_racc;
  out[(i1)*256 + (i2)*16 + (i3)] = (float)(acc);
}
BY_KERNEL void __launch_bounds__(256) maxpool_k0(const float* __restrict__ in0, float* __restrict__ out) {
  maxpool_k0_body(in0, out, by_this_block());
}

// ===== conv_k1 =====
BY_DEVICE void conv_k1_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 64;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 32) * 8; by_blk /= 32;
  const int by_m0 = (by_blk % 2) * 4; by_blk /= 2;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  for (int kt = 0; kt < 2; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 64; e += 32) {
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
    for (int e = tid; e < 128; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_br0 + rr; const int gk = kt * 16 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 16; by_rm /= 16;
        const int i2 = by_rm;
        const int r0 = gk;
        v = in0[(i0)*8192 + (r0)*256 + (i2)*16 + (i3)];
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
      const int i3 = by_en % 16; by_en /= 16;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*256 + (i2)*16 + (i3)] = (float)(by_max((acc + in2[(i1)]), 0.0f));
    }
  }
}
BY_KERNEL void conv_k1(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  conv_k1_body(in0, in1, in2, out, by_this_block());
}

// ===== conv_k2 =====
BY_DEVICE void conv_k2_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 32;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 32) * 8; by_blk /= 32;
  const int by_m0 = (by_blk % 2) * 4; by_blk /= 2;
  const int by_ks = (int)(by_blk % 4); by_blk /= 4;
  const unsigned int by_tile = by_block.idx.x % 64u + by_block.idx.x / 256u * 64u;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 3;
  const int nloc = 9 - kt_begin < 3 ? 9 - kt_begin : 3;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 32; e += 32) {
      const int kk = e % 8; const int rr = e / 8;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        int by_rk = gk;
        const int r2 = by_rk % 3; by_rk /= 3;
        const int r1 = by_rk % 3; by_rk /= 3;
        const int r0 = by_rk;
        v = in1[(i1)*72 + (r0)*9 + (r1)*3 + (r2)];
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
        int by_rk = gk;
        const int r2 = by_rk % 3; by_rk /= 3;
        const int r1 = by_rk % 3; by_rk /= 3;
        const int r0 = by_rk;
        const int t0 = ((i2 + r1) - (1ll));
        const int t1 = ((i3 + r2) - (1ll));
        v = (((((t0 >= (0ll)) && (t0 < (16ll))) && (t1 >= (0ll))) && (t1 < (16ll))) ? in0[(i0)*2048 + (r0)*256 + (t0)*16 + (t1)] : 0.0f);
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
  if (tid == 0) *by_last = by_arrive(&by_block.arrivals[by_tile], 4u);
  __syncthreads();
  if (!*by_last) return;
  __threadfence();   // the other slices are read after their arrivals were seen
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 4; ++k)
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
      out[(i1)*256 + (i2)*16 + (i3)] = (float)(by_max((acc + in2[(i1)]), 0.0f));
    }
  }
}
BY_DEVICE_STATE unsigned int conv_k2_arrivals[64];
BY_KERNEL void conv_k2(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k2_body(in0, in1, in2, by_ws, out, by_this_block(conv_k2_arrivals));
}

// ===== conv_k3 =====
BY_DEVICE void conv_k3_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 32;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 32) * 8; by_blk /= 32;
  const int by_m0 = (by_blk % 8) * 4; by_blk /= 8;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  for (int kt = 0; kt < 1; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 32; e += 32) {
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
    for (int e = tid; e < 64; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_br0 + rr; const int gk = kt * 8 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 16; by_rm /= 16;
        const int i2 = by_rm;
        const int r0 = gk;
        v = in0[(i0)*2048 + (r0)*256 + (i2)*16 + (i3)];
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
      out[(i1)*256 + (i2)*16 + (i3)] = (float)(by_max(((acc + in2[(i1)]) + in3[(i0)*8192 + (i1)*256 + (i2)*16 + (i3)]), 0.0f));
    }
  }
}
BY_KERNEL void conv_k3(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, float* __restrict__ out) {
  conv_k3_body(in0, in1, in2, in3, out, by_this_block());
}

// ===== conv_k4 =====
BY_DEVICE void conv_k4_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 64;
  const int tid = threadIdx.x;
  const int tx = tid % 16;
  const int ty = tid / 16;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 16) * 16; by_blk /= 16;
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
        const int i3 = by_rm % 16; by_rm /= 16;
        const int i2 = by_rm;
        const int r0 = gk;
        v = in0[(i0)*8192 + (r0)*256 + (i2)*16 + (i3)];
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
      const int i3 = by_en % 16; by_en /= 16;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*256 + (i2)*16 + (i3)] = (float)(by_max((acc + in2[(i1)]), 0.0f));
    }
  }
}
BY_KERNEL void conv_k4(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  conv_k4_body(in0, in1, in2, out, by_this_block());
}

// ===== conv_k5 =====
BY_DEVICE void conv_k5_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 32;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 8) * 8; by_blk /= 8;
  const int by_m0 = (by_blk % 4) * 4; by_blk /= 4;
  const int by_ks = (int)(by_blk % 8); by_blk /= 8;
  const unsigned int by_tile = by_block.idx.x % 32u + by_block.idx.x / 256u * 32u;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 3;
  const int nloc = 18 - kt_begin < 3 ? 18 - kt_begin : 3;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 32; e += 32) {
      const int kk = e % 8; const int rr = e / 8;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        int by_rk = gk;
        const int r2 = by_rk % 3; by_rk /= 3;
        const int r1 = by_rk % 3; by_rk /= 3;
        const int r0 = by_rk;
        v = in1[(i1)*144 + (r0)*9 + (r1)*3 + (r2)];
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
        int by_rk = gk;
        const int r2 = by_rk % 3; by_rk /= 3;
        const int r1 = by_rk % 3; by_rk /= 3;
        const int r0 = by_rk;
        const int t0 = (((i2 * (2ll)) + r1) - (1ll));
        const int t1 = (((i3 * (2ll)) + r2) - (1ll));
        v = (((t0 >= (0ll)) && (t1 >= (0ll))) ? in0[(i0)*4096 + (r0)*256 + (t0)*16 + (t1)] : 0.0f);
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
  if (tid == 0) *by_last = by_arrive(&by_block.arrivals[by_tile], 8u);
  __syncthreads();
  if (!*by_last) return;
  __threadfence();   // the other slices are read after their arrivals were seen
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 8; ++k)
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
      out[(i1)*64 + (i2)*8 + (i3)] = (float)(by_max((acc + in2[(i1)]), 0.0f));
    }
  }
}
BY_DEVICE_STATE unsigned int conv_k5_arrivals[32];
BY_KERNEL void conv_k5(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k5_body(in0, in1, in2, by_ws, out, by_this_block(conv_k5_arrivals));
}

// ===== conv_k6 =====
BY_DEVICE void conv_k6_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 128;
  const int tid = threadIdx.x;
  const int tx = tid % 32;
  const int ty = tid / 32;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 2) * 32; by_blk /= 2;
  const int by_m0 = (by_blk % 8) * 8; by_blk /= 8;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  for (int kt = 0; kt < 2; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 128; e += 256) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_ar0 + rr; const int gk = kt * 16 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in4[(i1)*32 + (r0)];
      }
      by_as[kk * 8 + rr] = v;
    }
    for (int e = tid; e < 512; e += 256) {
      const int rr = e % 32; const int kk = e / 32;
      const int gr = by_br0 + rr; const int gk = kt * 16 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 8; by_rm /= 8;
        const int i2 = by_rm;
        const int r0 = gk;
        v = in3[(i0)*8192 + (r0)*256 + ((i2 * (2ll)))*16 + ((i3 * (2ll)))];
      }
      by_bs[kk * 32 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 128;
    const float* const bs = by_bs + cur * 512;
    #pragma unroll
    for (int kk = 0; kk < 16; ++kk) {
      float a[1], b[1];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 8 + ty + (i) * 8];
      #pragma unroll
      for (int i = 0; i < 1; ++i) b[i] = bs[kk * 32 + tx + (i) * 32];
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
      const int gn = by_n0 + tx + (j) * 32;
      int by_en = gn;
      const int i3 = by_en % 8; by_en /= 8;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*64 + (i2)*8 + (i3)] = (float)(by_max(((([&]() { float tf0_acc = 0.0f; BY_ROLLED for (int q0_0 = 0; q0_0 < 16; ++q0_0) { tf0_acc = tf0_acc + (in0[(i0)*1024 + (q0_0)*64 + (i2)*8 + (i3)] * in1[(i1)*16 + (q0_0)]); } return tf0_acc; }()) + in2[(i1)]) + (acc + in5[(i1)])), 0.0f));
    }
  }
}
BY_KERNEL void conv_k6(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ out) {
  conv_k6_body(in0, in1, in2, in3, in4, in5, out, by_this_block());
}

// ===== conv_k7 =====
BY_DEVICE void conv_k7_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 32;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 8) * 8; by_blk /= 8;
  const int by_m0 = (by_blk % 8) * 4; by_blk /= 8;
  const int by_ks = (int)(by_blk % 4); by_blk /= 4;
  const unsigned int by_tile = by_block.idx.x % 64u + by_block.idx.x / 256u * 64u;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 2;
  const int nloc = 8 - kt_begin < 2 ? 8 - kt_begin : 2;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 32; e += 32) {
      const int rr = e % 4; const int kk = e / 4;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in1[(i1)*64 + (r0)];
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
        v = in0[(i0)*4096 + (r0)*64 + (i2)*8 + (i3)];
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
  if (tid == 0) *by_last = by_arrive(&by_block.arrivals[by_tile], 4u);
  __syncthreads();
  if (!*by_last) return;
  __threadfence();   // the other slices are read after their arrivals were seen
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 4; ++k)
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
      const int i3 = by_en % 8; by_en /= 8;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*64 + (i2)*8 + (i3)] = (float)(by_max((acc + in2[(i1)]), 0.0f));
    }
  }
}
BY_DEVICE_STATE unsigned int conv_k7_arrivals[64];
BY_KERNEL void conv_k7(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k7_body(in0, in1, in2, by_ws, out, by_this_block(conv_k7_arrivals));
}

// ===== conv_k8 =====
BY_DEVICE void conv_k8_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 32;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 2) * 8; by_blk /= 2;
  const int by_m0 = (by_blk % 8) * 4; by_blk /= 8;
  const int by_ks = (int)(by_blk % 16); by_blk /= 16;
  const unsigned int by_tile = by_block.idx.x % 16u + by_block.idx.x / 256u * 16u;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 3;
  const int nloc = 36 - kt_begin < 3 ? 36 - kt_begin : 3;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 32; e += 32) {
      const int kk = e % 8; const int rr = e / 8;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        int by_rk = gk;
        const int r2 = by_rk % 3; by_rk /= 3;
        const int r1 = by_rk % 3; by_rk /= 3;
        const int r0 = by_rk;
        v = in1[(i1)*288 + (r0)*9 + (r1)*3 + (r2)];
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 64; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 4; by_rm /= 4;
        const int i2 = by_rm;
        int by_rk = gk;
        const int r2 = by_rk % 3; by_rk /= 3;
        const int r1 = by_rk % 3; by_rk /= 3;
        const int r0 = by_rk;
        const int t0 = (((i2 * (2ll)) + r1) - (1ll));
        const int t1 = (((i3 * (2ll)) + r2) - (1ll));
        v = (((t0 >= (0ll)) && (t1 >= (0ll))) ? in0[(i0)*2048 + (r0)*64 + (t0)*8 + (t1)] : 0.0f);
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
    for (int j = 0; j < 1; ++j) by_ws[(((int)by_ks * 16 + by_tile) * 1 + i * 1 + j) * 32 + tid] = by_acc[i][j];
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
      for (int j = 0; j < 1; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 16 + by_tile) * 1 + i * 1 + j) * 32 + tid]);
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 4;
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 8;
      int by_en = gn;
      const int i3 = by_en % 4; by_en /= 4;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*16 + (i2)*4 + (i3)] = (float)(by_max((acc + in2[(i1)]), 0.0f));
    }
  }
}
BY_DEVICE_STATE unsigned int conv_k8_arrivals[16];
BY_KERNEL void conv_k8(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k8_body(in0, in1, in2, by_ws, out, by_this_block(conv_k8_arrivals));
}

// ===== conv_k9 =====
BY_DEVICE void conv_k9_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 32;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 2) * 8; by_blk /= 2;
  const int by_m0 = (by_blk % 32) * 4; by_blk /= 32;
  const int by_ks = (int)(by_blk % 4); by_blk /= 4;
  const unsigned int by_tile = by_block.idx.x % 64u + by_block.idx.x / 256u * 64u;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 2;
  const int nloc = 8 - kt_begin < 2 ? 8 - kt_begin : 2;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 32; e += 32) {
      const int rr = e % 4; const int kk = e / 4;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in4[(i1)*64 + (r0)];
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 64; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 4; by_rm /= 4;
        const int i2 = by_rm;
        const int r0 = gk;
        v = in3[(i0)*4096 + (r0)*64 + ((i2 * (2ll)))*8 + ((i3 * (2ll)))];
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
  if (tid == 0) *by_last = by_arrive(&by_block.arrivals[by_tile], 4u);
  __syncthreads();
  if (!*by_last) return;
  __threadfence();   // the other slices are read after their arrivals were seen
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 4; ++k)
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
      const int i3 = by_en % 4; by_en /= 4;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*16 + (i2)*4 + (i3)] = (float)(by_max(((([&]() { float tf0_acc = 0.0f; BY_ROLLED for (int q0_0 = 0; q0_0 < 32; ++q0_0) { tf0_acc = tf0_acc + (in0[(i0)*512 + (q0_0)*16 + (i2)*4 + (i3)] * in1[(i1)*32 + (q0_0)]); } return tf0_acc; }()) + in2[(i1)]) + (acc + in5[(i1)])), 0.0f));
    }
  }
}
BY_DEVICE_STATE unsigned int conv_k9_arrivals[64];
BY_KERNEL void conv_k9(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k9_body(in0, in1, in2, in3, in4, in5, by_ws, out, by_this_block(conv_k9_arrivals));
}

// ===== conv_k10 =====
BY_DEVICE void conv_k10_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 32;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 2) * 8; by_blk /= 2;
  const int by_m0 = (by_blk % 16) * 4; by_blk /= 16;
  const int by_ks = (int)(by_blk % 8); by_blk /= 8;
  const unsigned int by_tile = by_block.idx.x % 32u + by_block.idx.x / 256u * 32u;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 2;
  const int nloc = 16 - kt_begin < 2 ? 16 - kt_begin : 2;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 32; e += 32) {
      const int rr = e % 4; const int kk = e / 4;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in1[(i1)*128 + (r0)];
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 64; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 4; by_rm /= 4;
        const int i2 = by_rm;
        const int r0 = gk;
        v = in0[(i0)*2048 + (r0)*16 + (i2)*4 + (i3)];
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
  if (tid == 0) *by_last = by_arrive(&by_block.arrivals[by_tile], 8u);
  __syncthreads();
  if (!*by_last) return;
  __threadfence();   // the other slices are read after their arrivals were seen
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 8; ++k)
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
      const int i3 = by_en % 4; by_en /= 4;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*16 + (i2)*4 + (i3)] = (float)(by_max((acc + in2[(i1)]), 0.0f));
    }
  }
}
BY_DEVICE_STATE unsigned int conv_k10_arrivals[32];
BY_KERNEL void conv_k10(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k10_body(in0, in1, in2, by_ws, out, by_this_block(conv_k10_arrivals));
}

// ===== conv_k11 =====
BY_DEVICE void conv_k11_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 96;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 1) * 8; by_blk /= 1;
  const int by_m0 = (by_blk % 16) * 4; by_blk /= 16;
  const int by_ks = (int)(by_blk % 16); by_blk /= 16;
  const unsigned int by_tile = by_block.idx.x % 16u + by_block.idx.x / 256u * 16u;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 3;
  const int nloc = 36 - kt_begin < 3 ? 36 - kt_begin : 3;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 64; e += 32) {
      const int kk = e % 16; const int rr = e / 16;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 16 + kk;
      float v = 0;
      {
        const int i1 = gr;
        int by_rk = gk;
        const int r2 = by_rk % 3; by_rk /= 3;
        const int r1 = by_rk % 3; by_rk /= 3;
        const int r0 = by_rk;
        v = in1[(i1)*576 + (r0)*9 + (r1)*3 + (r2)];
      }
      by_as[kk * 6 + rr] = v;
    }
    for (int e = tid; e < 128; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 16 + kk;
      float v = 0;
      if (gr < 4) {
        int by_rm = gr;
        const int i3 = by_rm % 2; by_rm /= 2;
        const int i2 = by_rm;
        int by_rk = gk;
        const int r2 = by_rk % 3; by_rk /= 3;
        const int r1 = by_rk % 3; by_rk /= 3;
        const int r0 = by_rk;
        const int t0 = (((i2 * (2ll)) + r1) - (1ll));
        const int t1 = (((i3 * (2ll)) + r2) - (1ll));
        v = (((t0 >= (0ll)) && (t1 >= (0ll))) ? in0[(i0)*1024 + (r0)*16 + (t0)*4 + (t1)] : 0.0f);
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
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_ws[(((int)by_ks * 16 + by_tile) * 1 + i * 1 + j) * 32 + tid] = by_acc[i][j];
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
      for (int j = 0; j < 1; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 16 + by_tile) * 1 + i * 1 + j) * 32 + tid]);
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
      out[(i1)*4 + (i2)*2 + (i3)] = (float)(by_max((acc + in2[(i1)]), 0.0f));
    }
  }
}
BY_DEVICE_STATE unsigned int conv_k11_arrivals[16];
BY_KERNEL void conv_k11(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k11_body(in0, in1, in2, by_ws, out, by_this_block(conv_k11_arrivals));
}

// ===== conv_k12 =====
BY_DEVICE void conv_k12_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 64;
  const int tid = threadIdx.x;
  const int tx = tid % 4;
  const int ty = tid / 4;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 1) * 8; by_blk /= 1;
  const int by_m0 = (by_blk % 32) * 8; by_blk /= 32;
  const int by_ks = (int)(by_blk % 8); by_blk /= 8;
  const unsigned int by_tile = by_block.idx.x % 32u + by_block.idx.x / 256u * 32u;
  const int i0 = 0;
  float by_acc[1][2];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 2; ++j) by_acc[i][j] = 0;
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
        const int i1 = gr;
        const int r0 = gk;
        v = in4[(i1)*128 + (r0)];
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
        v = in3[(i0)*2048 + (r0)*16 + ((i2 * (2ll)))*4 + ((i3 * (2ll)))];
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
    for (int j = 0; j < 2; ++j) by_ws[(((int)by_ks * 32 + by_tile) * 2 + i * 2 + j) * 32 + tid] = by_acc[i][j];
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
      for (int j = 0; j < 2; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 32 + by_tile) * 2 + i * 2 + j) * 32 + tid]);
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
      out[(i1)*4 + (i2)*2 + (i3)] = (float)(by_max(((([&]() { float tf0_acc = 0.0f; BY_ROLLED for (int q0_0 = 0; q0_0 < 64; ++q0_0) { tf0_acc = tf0_acc + (in0[(i0)*256 + (q0_0)*4 + (i2)*2 + (i3)] * in1[(i1)*64 + (q0_0)]); } return tf0_acc; }()) + in2[(i1)]) + (acc + in5[(i1)])), 0.0f));
    }
  }
}
BY_DEVICE_STATE unsigned int conv_k12_arrivals[32];
BY_KERNEL void conv_k12(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, const float* __restrict__ in5, float* __restrict__ by_ws, float* __restrict__ out) {
  conv_k12_body(in0, in1, in2, in3, in4, in5, by_ws, out, by_this_block(conv_k12_arrivals));
}

// ===== reducemean_k0 =====
BY_DEVICE void reducemean_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const int tid = threadIdx.x;
  const int lane = tid % 4;
  const int row = (int)by_block.idx.x * 32 + tid / 4;
  const bool active = row < 256;
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
    const float v = in0[(i0)*1024 + (i1)*4 + (r0)*2 + (r1)];
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
