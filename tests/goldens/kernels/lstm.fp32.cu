// golden: lstm.onnx h100 fp32
// 5 launches, 4 distinct kernels
// launch 0: lstm_xw_k0 grid=[256, 1, 1] block=[128, 1, 1] shared=3328 params=[float long long float float out:float]
// launch 1: lstm_recurrence_k0 grid=[32, 1, 1] block=[256, 1, 1] shared=576 cooperative params=[float float float float out:float out:float]
// launch 2: lstm_xw_k1 grid=[128, 1, 1] block=[128, 1, 1] shared=4352 params=[float float float out:float]
// launch 3: lstm_recurrence_k0 grid=[32, 1, 1] block=[256, 1, 1] shared=576 cooperative params=[float float float float out:float out:float]
// launch 4: matmul_k0 grid=[252, 1, 1] block=[128, 1, 1] shared=4224 params=[float float float out:float]

// ===== lstm_xw_k0 =====
BY_DEVICE void lstm_xw_k0_body(const float* __restrict__ in0, const long long* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 288;
  const int tid = threadIdx.x;
  const int tx = tid % 16;
  const int ty = tid / 16;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 32) * 16; by_blk /= 32;
  const int by_m0 = (by_blk % 8) * 8; by_blk /= 8;
  const int i0 = 0;
  const int i2 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  for (int kt = 0; kt < 4; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 256; e += 128) {
      const int kk = e % 32; const int rr = e / 32;
      const int gr = by_ar0 + rr; const int gk = kt * 32 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        const long long t0 = in1[(i2)*64 + (i1)];
        v = in0[(((t0 < (0ll)) ? (t0 + (1000ll)) : t0))*128 + (r0)];
      }
      by_as[kk * 9 + rr] = v;
    }
    for (int e = tid; e < 512; e += 128) {
      const int kk = e % 32; const int rr = e / 32;
      const int gr = by_br0 + rr; const int gk = kt * 32 + kk;
      float v = 0;
      {
        const int i3 = gr;
        const int r0 = gk;
        v = in2[(i0)*65536 + (i3)*128 + (r0)];
      }
      by_bs[kk * 17 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 288;
    const float* const bs = by_bs + cur * 544;
    #pragma unroll
    for (int kk = 0; kk < 32; ++kk) {
      float a[1], b[1];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 9 + ty + (i) * 8];
      #pragma unroll
      for (int i = 0; i < 1; ++i) b[i] = bs[kk * 17 + tx + (i) * 16];
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
      const int i3 = gn;
      const float acc = by_acc[i][j];
      out[(i1)*512 + (i3)] = (float)(((acc + in3[(i0)*1024 + (i3)]) + in3[(i0)*1024 + ((i3 + (512ll)))]));
    }
  }
}
BY_KERNEL void lstm_xw_k0(const float* __restrict__ in0, const long long* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, float* __restrict__ out) {
  lstm_xw_k0_body(in0, in1, in2, in3, out, by_this_block());
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
BY_DEVICE void lstm_xw_k1_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 544;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 32) * 16; by_blk /= 32;
  const int by_m0 = (by_blk % 4) * 16; by_blk /= 4;
  const int i0 = 0;
  const int i2 = 0;
  float by_acc[1][2];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 2; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  for (int kt = 0; kt < 4; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 512; e += 128) {
      const int kk = e % 32; const int rr = e / 32;
      const int gr = by_ar0 + rr; const int gk = kt * 32 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in0[(i1)*128 + (r0)];
      }
      by_as[kk * 17 + rr] = v;
    }
    for (int e = tid; e < 512; e += 128) {
      const int kk = e % 32; const int rr = e / 32;
      const int gr = by_br0 + rr; const int gk = kt * 32 + kk;
      float v = 0;
      {
        const int i3 = gr;
        const int r0 = gk;
        v = in1[(i0)*65536 + (i3)*128 + (r0)];
      }
      by_bs[kk * 17 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 544;
    const float* const bs = by_bs + cur * 544;
    #pragma unroll
    for (int kk = 0; kk < 32; ++kk) {
      float a[1], b[2];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 17 + ty + (i) * 16];
      #pragma unroll
      for (int i = 0; i < 2; ++i) b[i] = bs[kk * 17 + tx + (i) * 8];
      #pragma unroll
      for (int i = 0; i < 1; ++i)
        #pragma unroll
        for (int j = 0; j < 2; ++j) by_acc[i][j] += a[i] * b[j];
    }
    __syncthreads();
  }
  #pragma unroll
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 16;
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int gn = by_n0 + tx + (j) * 8;
      const int i3 = gn;
      const float acc = by_acc[i][j];
      out[(i1)*512 + (i3)] = (float)(((acc + in2[(i0)*1024 + (i3)]) + in2[(i0)*1024 + ((i3 + (512ll)))]));
    }
  }
}
BY_KERNEL void lstm_xw_k1(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  lstm_xw_k1_body(in0, in1, in2, out, by_this_block());
}

// ===== matmul_k0 =====
BY_DEVICE void matmul_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 544;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 63) * 16; by_blk /= 63;
  const int by_m0 = (by_blk % 4) * 16; by_blk /= 4;
  const int i0 = 0;
  float by_acc[1][2];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 2; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  for (int kt = 0; kt < 4; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 512; e += 128) {
      const int kk = e % 32; const int rr = e / 32;
      const int gr = by_ar0 + rr; const int gk = kt * 32 + kk;
      float v = 0;
      {
        const int i1 = gr;
        const int r0 = gk;
        v = in0[(i1)*128 + (r0)];
      }
      by_as[kk * 17 + rr] = v;
    }
    for (int e = tid; e < 512; e += 128) {
      const int rr = e % 16; const int kk = e / 16;
      const int gr = by_br0 + rr; const int gk = kt * 32 + kk;
      float v = 0;
      if (gr < 1000) {
        const int i2 = gr;
        const int r0 = gk;
        v = in1[(r0)*1000 + (i2)];
      }
      by_bs[kk * 16 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 544;
    const float* const bs = by_bs + cur * 512;
    #pragma unroll
    for (int kk = 0; kk < 32; ++kk) {
      float a[1], b[2];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 17 + ty + (i) * 16];
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
  for (int i = 0; i < 1; ++i) {
    const int gm = by_m0 + ty + (i) * 16;
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int gn = by_n0 + tx + (j) * 8;
      if (gn >= 1000) continue;
      const int i2 = gn;
      const float acc = by_acc[i][j];
      out[(i1)*1000 + (i2)] = (float)((acc + in2[(i2)]));
    }
  }
}
BY_KERNEL void matmul_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  matmul_k0_body(in0, in1, in2, out, by_this_block());
}
