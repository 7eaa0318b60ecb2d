// golden: rnn_loop.onnx h100 fp16
// 9 launches, 7 distinct kernels
// launch 0: add_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[long long out:long long]
// launch 1: gather_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float long long out:float]
// launch 2: matmul_k0 grid=[128, 1, 1] block=[128, 1, 1] shared=32 params=[float float out:float]
// launch 3: add_k1 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float out:float]
// launch 4: matmul_k0 grid=[128, 1, 1] block=[128, 1, 1] shared=32 params=[float float out:float]
// launch 5: add_k1 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float out:float]
// launch 6: add_k2 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float out:float]
// launch 7: tanh_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]
// launch 8: less_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[long long out:bool]

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

// ===== gather_k0 =====
BY_DEVICE void gather_k0_body(const float* __restrict__ in0, const long long* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 128; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 128) break;
      const int i0 = 0;
      const int i1 = 0;
      const int i2 = lin;
      const long long t0 = in1[(i0)];
      out[(i2)] = (float)(in0[(((t0 < (0ll)) ? (t0 + (16ll)) : t0))*128 + (i1)*128 + (i2)]);
    }
  }
}
BY_KERNEL void __launch_bounds__(512) gather_k0(const float* __restrict__ in0, const long long* __restrict__ in1, float* __restrict__ out) {
  gather_k0_body(in0, in1, out, by_this_block());
}

// ===== matmul_k0 =====
BY_DEVICE void matmul_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
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
    out[(i1)] = (float)(acc);
  }
}
BY_KERNEL void __launch_bounds__(128) matmul_k0(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out) {
  matmul_k0_body(in0, in1, out, by_this_block());
}

// ===== add_k1 =====
BY_DEVICE void add_k1_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0) | (unsigned long long)(in1)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  const int i0 = 0;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 32; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        const int i1 = by_lin;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*128 + (i1)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        const uint4 by_r1 = by_ld_global_b128(in1 + ((i1)));
        const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)((by_e0[by_j] + by_e1[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 32) {
          const int by_lin = by_q * 4;
          const int i1 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*128 + (i1)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i1)));
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
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 32) {
          const int by_lin = by_q * 4;
          const int i1 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*128 + (i1)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i1)));
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
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 32) {
          const int by_lin = by_q * 4;
          const int i1 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*128 + (i1)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i1)));
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
    }
  } else {
    for (int by_lin = by_tid; by_lin < 128; by_lin += by_step) {
      const int i1 = by_lin;
      out[(i1)] = (float)((in0[(i0)*128 + (i1)] + in1[(i1)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) add_k1(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out) {
  add_k1_body(in0, in1, out, by_this_block());
}

// ===== add_k2 =====
BY_DEVICE void add_k2_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0) | (unsigned long long)(in1)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  const int i0 = 0;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 32; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        const int i1 = by_lin;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*128 + (i1)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*128 + (i1)));
        const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)((by_e0[by_j] + by_e1[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 32) {
          const int by_lin = by_q * 4;
          const int i1 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*128 + (i1)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*128 + (i1)));
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
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 32) {
          const int by_lin = by_q * 4;
          const int i1 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*128 + (i1)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*128 + (i1)));
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
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 32) {
          const int by_lin = by_q * 4;
          const int i1 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*128 + (i1)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*128 + (i1)));
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
    }
  } else {
    for (int by_lin = by_tid; by_lin < 128; by_lin += by_step) {
      const int i1 = by_lin;
      out[(i1)] = (float)((in0[(i0)*128 + (i1)] + in1[(i0)*128 + (i1)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) add_k2(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out) {
  add_k2_body(in0, in1, out, by_this_block());
}

// ===== tanh_k0 =====
BY_DEVICE void tanh_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  const int i0 = 0;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 32; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        const int i1 = by_lin;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*128 + (i1)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_tanh(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 32) {
          const int by_lin = by_q * 4;
          const int i1 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*128 + (i1)));
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
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 32) {
          const int by_lin = by_q * 4;
          const int i1 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*128 + (i1)));
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
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 32) {
          const int by_lin = by_q * 4;
          const int i1 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*128 + (i1)));
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
    }
  } else {
    for (int by_lin = by_tid; by_lin < 128; by_lin += by_step) {
      const int i1 = by_lin;
      out[(i1)] = (float)(by_tanh(in0[(i0)*128 + (i1)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) tanh_k0(const float* __restrict__ in0, float* __restrict__ out) {
  tanh_k0_body(in0, out, by_this_block());
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
