// golden: lstm.onnx h100 fp32
// 5 launches, 4 distinct kernels
// launch 0: lstm_xw_k0 grid=[256, 1, 1] block=[128, 1, 1] shared=2304 params=[float long long float float out:float out:float]
// launch 1: lstm_recurrence_k0 grid=[32, 1, 1] block=[256, 1, 1] shared=576 cooperative params=[float float float float out:float out:float]
// launch 2: lstm_xw_k1 grid=[256, 1, 1] block=[128, 1, 1] shared=2816 params=[float float float out:float out:float]
// launch 3: lstm_recurrence_k0 grid=[32, 1, 1] block=[256, 1, 1] shared=576 cooperative params=[float float float float out:float out:float]
// launch 4: matmul_k0 grid=[256, 1, 1] block=[128, 1, 1] shared=4224 params=[float float float out:float out:float]

// ===== lstm_xw_k0 =====
BY_DEVICE void lstm_xw_k0_body(const float* __restrict__ in0, const long long* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 288;
  const int tid = threadIdx.x;
  const int tx = tid % 4;
  const int ty = tid / 4;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 16) * 32; by_blk /= 16;
  const int by_m0 = (by_blk % 2) * 32; by_blk /= 2;
  const int by_ks = (int)(by_blk % 8); by_blk /= 8;
  const unsigned int by_tile = by_block.idx.x % 32u + by_block.idx.x / 256u * 32u;
  const int i0 = 0;
  const int i2 = 0;
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
    for (int e = tid; e < 256; e += 128) {
      const int kk = e % 8; const int rr = e / 8;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        const long long t0 = in1[(i2)*64 + (i1)];
        v = in0[(((t0 < (0ll)) ? (t0 + (1000ll)) : t0))*128 + (r0)];
      }
      by_as[kk * 36 + rr] = v;
    }
    for (int e = tid; e < 256; e += 128) {
      const int kk = e % 8; const int rr = e / 8;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i3 = gr;
        const int r0 = gk;
        v = in2[(i0)*65536 + (i3)*128 + (r0)];
      }
      by_bs[kk * 36 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 288;
    const float* const bs = by_bs + cur * 288;
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[1], b[8];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 36 + ty + (i) * 32];
      #pragma unroll
      for (int g = 0; g < 2; ++g) {
        const float4 q = by_ld_shared_v4(bs + kk * 36 + g * 16 + tx * 4);
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
    const int gm = by_m0 + ty + (i) * 32;
    const int i1 = gm;
    float* const by_orow = out + ((i1)*512);
    #pragma unroll
    for (int g = 0; g < 2; ++g) {
      const int gn0 = by_n0 + g * 16 + tx * 4;
      float by_ov[4];
      {
        const int gn = gn0 + 0;
        const int i3 = gn;
        const float acc = by_acc[i][4 * g + 0];
        by_ov[0] = (float)(((acc + in3[(i0)*1024 + (i3)]) + in3[(i0)*1024 + ((i3 + (512ll)))]));
      }
      {
        const int gn = gn0 + 1;
        const int i3 = gn;
        const float acc = by_acc[i][4 * g + 1];
        by_ov[1] = (float)(((acc + in3[(i0)*1024 + (i3)]) + in3[(i0)*1024 + ((i3 + (512ll)))]));
      }
      {
        const int gn = gn0 + 2;
        const int i3 = gn;
        const float acc = by_acc[i][4 * g + 2];
        by_ov[2] = (float)(((acc + in3[(i0)*1024 + (i3)]) + in3[(i0)*1024 + ((i3 + (512ll)))]));
      }
      {
        const int gn = gn0 + 3;
        const int i3 = gn;
        const float acc = by_acc[i][4 * g + 3];
        by_ov[3] = (float)(((acc + in3[(i0)*1024 + (i3)]) + in3[(i0)*1024 + ((i3 + (512ll)))]));
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
BY_DEVICE_STATE unsigned int lstm_xw_k0_arrivals[32];
BY_KERNEL void lstm_xw_k0(const float* __restrict__ in0, const long long* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, float* __restrict__ by_ws, float* __restrict__ out) {
  lstm_xw_k0_body(in0, in1, in2, in3, by_ws, out, by_this_block(lstm_xw_k0_arrivals));
}

// ===== lstm_recurrence_k0 =====
BY_DEVICE void lstm_recurrence_k0_body(const float* __restrict__ xw, const float* __restrict__ R, const float* __restrict__ init_h, const float* __restrict__ init_c, float* __restrict__ y, float* __restrict__ st, const by_block_index by_block) {
  constexpr int SEQ = 64, BATCH = 1, DIRS = 1, HID = 128, GH = 512;
  constexpr int SLICE = 4, SLICES = 32, NT = 256, NWARPS = 8;
  BY_SHARED_BUFFER(smem);
  float* hs = (float*)smem;
  float* gates = hs + HID;
  const int BLOCK_X_ = by_block.idx.x, GRID_X_ = by_block.grid.x;
  const int d = by_block.idx.y;
  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const float* Rd = R + (long long)d * GH * HID;
  auto len_of = [&](int b) { return SEQ; };
  int steps = 0;
  for (int b = 0; b < BATCH; ++b) steps = by_max(steps, len_of(b));
  const bool rev = false;
  for (int sl = BLOCK_X_; sl < SLICES; sl += GRID_X_) {
    const int j0 = sl * SLICE;
    for (int b = 0; b < BATCH; ++b) {
      for (int jj = tid; jj < SLICE; jj += NT) {
        const int j = j0 + jj;
        if (j >= HID) continue;
        st[(((0) * DIRS + d) * BATCH + b) * (long long)HID + j] = (float)init_h[((long long)d * BATCH + b) * HID + j];
        st[(((2) * DIRS + d) * BATCH + b) * (long long)HID + j] = (float)init_c[((long long)d * BATCH + b) * HID + j];
      }
    }
  }
  by_grid_sync();
  for (int s = 0; s < steps; ++s) {
    const int cur = s & 1, nxt = cur ^ 1;
    for (int b = 0; b < BATCH; ++b) {
      const int len = len_of(b);
      const int t = rev ? len - 1 - s : s;
      if (s < len) {
        for (int k = tid; k < HID; k += NT) hs[k] = __ldcg(&st[(((cur) * DIRS + d) * BATCH + b) * (long long)HID + k]);
        __syncthreads();
        const float* x = xw + (((long long)d * SEQ + t) * BATCH + b) * GH;
        for (int sl = BLOCK_X_; sl < SLICES; sl += GRID_X_) {
          const int j0 = sl * SLICE;
          for (int r = warp; r < 4 * SLICE; r += NWARPS) {
            const int g = 0 + r / SLICE, jj = r % SLICE, j = j0 + jj;
            if (j >= HID) continue;
            const float* rr = Rd + ((long long)g * HID + j) * HID;
            float acc = 0.0f;
            for (int k = lane; k < HID; k += 32) acc += (float)rr[k] * hs[k];
            for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
            if (lane == 0) gates[g * SLICE + jj] = acc;
          }
          __syncthreads();
          for (int jj = tid; jj < SLICE; jj += NT) {
            const int j = j0 + jj;
            if (j >= HID) continue;
            const float cp = st[(((2) * DIRS + d) * BATCH + b) * (long long)HID + j];
            const float ip = (x[0 * HID + j] + gates[0 * SLICE + jj]);
            const float ig = by_sigmoid(ip);
            const float fp = (x[2 * HID + j] + gates[2 * SLICE + jj]);
            const float fg = by_sigmoid(fp);
            const float gp = (x[3 * HID + j] + gates[3 * SLICE + jj]);
            const float cn = fg * cp + ig * by_tanh(gp);
            const float op = (x[1 * HID + j] + gates[1 * SLICE + jj]);
            const float og = by_sigmoid(op);
            const float hn = og * by_tanh(cn);
            st[(((2) * DIRS + d) * BATCH + b) * (long long)HID + j] = cn;
            st[(((nxt) * DIRS + d) * BATCH + b) * (long long)HID + j] = hn;
            y[(((long long)t * DIRS + d) * BATCH + b) * HID + j] = (float)(hn);
          }
          __syncthreads();
        }
      } else {
        for (int sl = BLOCK_X_; sl < SLICES; sl += GRID_X_) {
          const int j0 = sl * SLICE;
          for (int jj = tid; jj < SLICE; jj += NT) {
            const int j = j0 + jj;
            if (j >= HID) continue;
            st[(((nxt) * DIRS + d) * BATCH + b) * (long long)HID + j] = st[(((cur) * DIRS + d) * BATCH + b) * (long long)HID + j];
          }
        }
      }
      __syncthreads();
    }
    by_grid_sync();
  }
  for (int sl = BLOCK_X_; sl < SLICES; sl += GRID_X_) {
    const int j0 = sl * SLICE;
    for (int b = 0; b < BATCH; ++b) {
      for (int jj = tid; jj < SLICE; jj += NT) {
        const int j = j0 + jj;
        if (j >= HID) continue;
        for (int t = len_of(b); t < SEQ; ++t)
          y[(((long long)t * DIRS + d) * BATCH + b) * HID + j] = (float)(0.0f);
      }
    }
  }
}
BY_KERNEL void __launch_bounds__(256) lstm_recurrence_k0(const float* __restrict__ xw, const float* __restrict__ R, const float* __restrict__ init_h, const float* __restrict__ init_c, float* __restrict__ y, float* __restrict__ st) {
  lstm_recurrence_k0_body(xw, R, init_h, init_c, y, st, by_this_block());
}

// ===== lstm_xw_k1 =====
BY_DEVICE void lstm_xw_k1_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 160;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 8) * 64; by_blk /= 8;
  const int by_m0 = (by_blk % 4) * 16; by_blk /= 4;
  const int by_ks = (int)(by_blk % 8); by_blk /= 8;
  const unsigned int by_tile = by_block.idx.x % 32u + by_block.idx.x / 256u * 32u;
  const int i0 = 0;
  const int i2 = 0;
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
    for (int e = tid; e < 128; e += 128) {
      const int kk = e % 8; const int rr = e / 8;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in0[(i1)*128 + (r0)];
      }
      by_as[kk * 20 + rr] = v;
    }
    for (int e = tid; e < 512; e += 128) {
      const int kk = e % 8; const int rr = e / 8;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 8 + kk;
      float v = 0;
      {
        const int i3 = gr;
        const int r0 = gk;
        v = in1[(i0)*65536 + (i3)*128 + (r0)];
      }
      by_bs[kk * 68 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 160;
    const float* const bs = by_bs + cur * 544;
    #pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      float a[1], b[8];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 20 + ty + (i) * 16];
      #pragma unroll
      for (int g = 0; g < 2; ++g) {
        const float4 q = by_ld_shared_v4(bs + kk * 68 + g * 32 + tx * 4);
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
    float* const by_orow = out + ((i1)*512);
    #pragma unroll
    for (int g = 0; g < 2; ++g) {
      const int gn0 = by_n0 + g * 32 + tx * 4;
      float by_ov[4];
      {
        const int gn = gn0 + 0;
        const int i3 = gn;
        const float acc = by_acc[i][4 * g + 0];
        by_ov[0] = (float)(((acc + in2[(i0)*1024 + (i3)]) + in2[(i0)*1024 + ((i3 + (512ll)))]));
      }
      {
        const int gn = gn0 + 1;
        const int i3 = gn;
        const float acc = by_acc[i][4 * g + 1];
        by_ov[1] = (float)(((acc + in2[(i0)*1024 + (i3)]) + in2[(i0)*1024 + ((i3 + (512ll)))]));
      }
      {
        const int gn = gn0 + 2;
        const int i3 = gn;
        const float acc = by_acc[i][4 * g + 2];
        by_ov[2] = (float)(((acc + in2[(i0)*1024 + (i3)]) + in2[(i0)*1024 + ((i3 + (512ll)))]));
      }
      {
        const int gn = gn0 + 3;
        const int i3 = gn;
        const float acc = by_acc[i][4 * g + 3];
        by_ov[3] = (float)(((acc + in2[(i0)*1024 + (i3)]) + in2[(i0)*1024 + ((i3 + (512ll)))]));
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
BY_DEVICE_STATE unsigned int lstm_xw_k1_arrivals[32];
BY_KERNEL void lstm_xw_k1(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out) {
  lstm_xw_k1_body(in0, in1, in2, by_ws, out, by_this_block(lstm_xw_k1_arrivals));
}

// ===== matmul_k0 =====
BY_DEVICE void matmul_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 544;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 32) * 32; by_blk /= 32;
  const int by_m0 = (by_blk % 2) * 32; by_blk /= 2;
  const int by_ks = (int)(by_blk % 4); by_blk /= 4;
  const unsigned int by_tile = by_block.idx.x % 64u + by_block.idx.x / 256u * 64u;
  const int i0 = 0;
  float by_acc[2][4];
  #pragma unroll
  for (int i = 0; i < 2; ++i)
    #pragma unroll
    for (int j = 0; j < 4; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  const int kt_begin = by_ks * 2;
  const int nloc = 8 - kt_begin < 2 ? 8 - kt_begin : 2;
  for (int kt = 0; kt < nloc; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 512; e += 128) {
      const int kk = e % 16; const int rr = e / 16;
      const int gr = by_ar0 + rr; const int gk = (int)(kt_begin + kt) * 16 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in0[(i1)*128 + (r0)];
      }
      by_as[kk * 34 + rr] = v;
    }
    for (int e = tid; e < 512; e += 128) {
      const int rr = e % 32; const int kk = e / 32;
      const int gr = by_br0 + rr; const int gk = (int)(kt_begin + kt) * 16 + kk;
      float v = 0;
      if (gr < 1000) {
        const int i2 = gr;
        const int r0 = gk;
        v = in1[(r0)*1000 + (i2)];
      }
      by_bs[kk * 32 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 544;
    const float* const bs = by_bs + cur * 512;
    #pragma unroll
    for (int kk = 0; kk < 16; ++kk) {
      float a[2], b[4];
      #pragma unroll
      for (int i = 0; i < 2; ++i) a[i] = as[kk * 34 + ty + (i) * 16];
      #pragma unroll
      for (int g = 0; g < 1; ++g) {
        const float4 q = by_ld_shared_v4(bs + kk * 32 + g * 32 + tx * 4);
        b[4 * g] = q.x; b[4 * g + 1] = q.y; b[4 * g + 2] = q.z; b[4 * g + 3] = q.w;
      }
      #pragma unroll
      for (int i = 0; i < 2; ++i)
        #pragma unroll
        for (int j = 0; j < 4; ++j) by_acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  #pragma unroll
  for (int i = 0; i < 2; ++i)
    #pragma unroll
    for (int j = 0; j < 4; ++j) by_ws[(((int)by_ks * 64 + by_tile) * 8 + i * 4 + j) * 128 + tid] = by_acc[i][j];
  __threadfence();   // this thread's partial sums are visible device-wide before the block arrives
  __syncthreads();
  int* const by_last = reinterpret_cast<int*>(by_smem);   // the stages are free: all reads are done
  if (tid == 0) *by_last = by_arrive(&by_block.arrivals[by_tile], 4u);
  __syncthreads();
  if (!*by_last) return;
  __threadfence();   // the other slices are read after their arrivals were seen
  #pragma unroll
  for (int i = 0; i < 2; ++i)
    #pragma unroll
    for (int j = 0; j < 4; ++j) by_acc[i][j] = 0;
  #pragma unroll 1
  for (int k = 0; k < 4; ++k)
    #pragma unroll
    for (int i = 0; i < 2; ++i)
      #pragma unroll
      for (int j = 0; j < 4; ++j) by_acc[i][j] += __ldcg(&by_ws[(((int)k * 64 + by_tile) * 8 + i * 4 + j) * 128 + tid]);
  const bool by_out_aligned = ((unsigned long long)(out) & 15ull) == 0ull;
  #pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int gm = by_m0 + ty + (i) * 16;
    const int i1 = gm;
    float* const by_orow = out + ((i1)*1000);
    #pragma unroll
    for (int g = 0; g < 1; ++g) {
      const int gn0 = by_n0 + g * 32 + tx * 4;
      if (gn0 >= 1000) continue;
      float by_ov[4];
      {
        const int gn = gn0 + 0;
        const int i2 = gn;
        const float acc = by_acc[i][4 * g + 0];
        by_ov[0] = (float)((acc + in2[(i2)]));
      }
      {
        const int gn = gn0 + 1;
        const int i2 = gn;
        const float acc = by_acc[i][4 * g + 1];
        by_ov[1] = (float)((acc + in2[(i2)]));
      }
      {
        const int gn = gn0 + 2;
        const int i2 = gn;
        const float acc = by_acc[i][4 * g + 2];
        by_ov[2] = (float)((acc + in2[(i2)]));
      }
      {
        const int gn = gn0 + 3;
        const int i2 = gn;
        const float acc = by_acc[i][4 * g + 3];
        by_ov[3] = (float)((acc + in2[(i2)]));
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
BY_DEVICE_STATE unsigned int matmul_k0_arrivals[64];
BY_KERNEL void matmul_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ by_ws, float* __restrict__ out) {
  matmul_k0_body(in0, in1, in2, by_ws, out, by_this_block(matmul_k0_arrivals));
}
