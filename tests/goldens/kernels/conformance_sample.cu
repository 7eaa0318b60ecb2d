// golden: test_abs h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: abs_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== abs_k0 =====
BY_DEVICE void abs_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_abs(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_abs(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_abs(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_abs(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_abs(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) abs_k0(const float* __restrict__ in0, float* __restrict__ out) {
  abs_k0_body(in0, out, by_this_block());
}

// golden: test_acos h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: acos_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== acos_k0 =====
BY_DEVICE void acos_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_acos(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_acos(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_acos(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_acos(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_acos(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) acos_k0(const float* __restrict__ in0, float* __restrict__ out) {
  acos_k0_body(in0, out, by_this_block());
}

// golden: test_acosh h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: acosh_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== acosh_k0 =====
BY_DEVICE void acosh_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_acosh(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_acosh(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_acosh(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_acosh(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_acosh(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) acosh_k0(const float* __restrict__ in0, float* __restrict__ out) {
  acosh_k0_body(in0, out, by_this_block());
}

// golden: test_adagrad h100 fp32
// refused: invalid_model

// golden: test_adam h100 fp32
// refused: invalid_model

// golden: test_add h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: add_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float out:float]

// ===== add_k0 =====
BY_DEVICE void add_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0) | (unsigned long long)(in1)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
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
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
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
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
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
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
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
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)((in0[(i0)*20 + (i1)*5 + (i2)] + in1[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) add_k0(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out) {
  add_k0_body(in0, in1, out, by_this_block());
}

// golden: test_affine_grid_2d h100 fp32
// refused: shape

// golden: test_ai_onnx_ml_array_feature_extractor h100 fp32
// refused: invalid_model

// golden: test_ai_onnx_ml_binarizer h100 fp32
// refused: invalid_model

// golden: test_ai_onnx_ml_label_encoder_string_int h100 fp32
// refused: invalid_model

// golden: test_ai_onnx_ml_tree_ensemble_set_membership h100 fp32
// refused: invalid_model

// golden: test_and2d h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: and_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[bool bool out:bool]

// ===== and_k0 =====
BY_DEVICE void and_k0_body(const bool* __restrict__ in0, const bool* __restrict__ in1, bool* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 12; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 12) break;
      int by_rem = lin;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*4 + (i1)] = (bool)((in0[(i0)*4 + (i1)] && in1[(i0)*4 + (i1)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) and_k0(const bool* __restrict__ in0, const bool* __restrict__ in1, bool* __restrict__ out) {
  and_k0_body(in0, in1, out, by_this_block());
}

// golden: test_argmax_default_axis_example h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: argmax_k0 grid=[1, 1, 1] block=[256, 1, 1] shared=0 params=[float out:long long]

// ===== argmax_k0 =====
BY_DEVICE void argmax_k0_body(const float* __restrict__ in0, long long* __restrict__ out, const by_block_index by_block) {
  for (int lin = (int)by_block.idx.x * blockDim.x + threadIdx.x; lin < 2; lin += (int)by_block.grid.x * blockDim.x) {
    int rem = lin;
    const int i1 = rem % 2; rem /= 2;
    const int i0 = rem;
    float best = 0; long long acc = 0; bool have = false; long long pos = 0;
    for (int r0 = 0; r0 < 2; ++r0) {
      const float v = in0[(r0)*2 + (i1)];
      if (!have || v > best) { best = v; acc = pos; have = true; } ++pos;
    }
    out[lin] = (long long)(acc);
  }
}
BY_KERNEL void __launch_bounds__(256) argmax_k0(const float* __restrict__ in0, long long* __restrict__ out) {
  argmax_k0_body(in0, out, by_this_block());
}

// golden: test_argmin_default_axis_example h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: argmin_k0 grid=[1, 1, 1] block=[256, 1, 1] shared=0 params=[float out:long long]

// ===== argmin_k0 =====
BY_DEVICE void argmin_k0_body(const float* __restrict__ in0, long long* __restrict__ out, const by_block_index by_block) {
  for (int lin = (int)by_block.idx.x * blockDim.x + threadIdx.x; lin < 2; lin += (int)by_block.grid.x * blockDim.x) {
    int rem = lin;
    const int i1 = rem % 2; rem /= 2;
    const int i0 = rem;
    float best = 0; long long acc = 0; bool have = false; long long pos = 0;
    for (int r0 = 0; r0 < 2; ++r0) {
      const float v = in0[(r0)*2 + (i1)];
      if (!have || v < best) { best = v; acc = pos; have = true; } ++pos;
    }
    out[lin] = (long long)(acc);
  }
}
BY_KERNEL void __launch_bounds__(256) argmin_k0(const float* __restrict__ in0, long long* __restrict__ out) {
  argmin_k0_body(in0, out, by_this_block());
}

// golden: test_asin h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: asin_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== asin_k0 =====
BY_DEVICE void asin_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_asin(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_asin(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_asin(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_asin(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_asin(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) asin_k0(const float* __restrict__ in0, float* __restrict__ out) {
  asin_k0_body(in0, out, by_this_block());
}

// golden: test_asinh h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: asinh_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== asinh_k0 =====
BY_DEVICE void asinh_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_asinh(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_asinh(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_asinh(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_asinh(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_asinh(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) asinh_k0(const float* __restrict__ in0, float* __restrict__ out) {
  asinh_k0_body(in0, out, by_this_block());
}

// golden: test_atan h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: atan_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== atan_k0 =====
BY_DEVICE void atan_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_atan(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_atan(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_atan(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_atan(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_atan(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) atan_k0(const float* __restrict__ in0, float* __restrict__ out) {
  atan_k0_body(in0, out, by_this_block());
}

// golden: test_atanh h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: atanh_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== atanh_k0 =====
BY_DEVICE void atanh_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_atanh(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_atanh(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_atanh(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_atanh(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_atanh(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) atanh_k0(const float* __restrict__ in0, float* __restrict__ out) {
  atanh_k0_body(in0, out, by_this_block());
}

// golden: test_attention_23_boolmask_fullymasked_row_nan_robustness h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: attention_pv_rows_k0 grid=[4, 1, 1] block=[256, 1, 1] shared=64 params=[float float bool float out:float]

// ===== attention_pv_rows_k0 =====
BY_DEVICE void attention_pv_rows_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const bool* __restrict__ in2, const float* __restrict__ in3, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem_raw);
  float* const by_res0 = reinterpret_cast<float*>(by_smem_raw + 0);
  float* const by_st1 = reinterpret_cast<float*>(by_smem_raw + 16);
  float* const by_st2 = reinterpret_cast<float*>(by_smem_raw + 32);
  float* const by_res = reinterpret_cast<float*>(by_smem_raw + 48);
  const int by_row0 = (int)by_block.idx.x * 1;
  const int by_lane = threadIdx.x & 31, by_warp = threadIdx.x >> 5;
  (void)by_lane; (void)by_warp;
  for (int by_lin = threadIdx.x; by_lin < 2; by_lin += 256) {
    const int by_rl = by_lin / 2;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 4) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 2; by_rrem /= 2;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i2 = by_lin % 2;
    float acc = 0.0f;
    for (int r0 = 0; r0 < 8; r0 += 1) {
      const float v = (in0[(i0)*16 + (i1)*8 + (r0)] * in1[(i0)*16 + (i2)*8 + (r0)]);
      acc = acc + v;
    }
    by_res0[by_lin] = (float)((in2[(i1)*2 + (i2)] ? (acc * 0.353553368012399f) : (-by_inf_f())));
  }
  __syncthreads();
  for (int by_rl = by_warp / 1; by_rl < 1; by_rl += 8) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 4) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 2; by_rrem /= 2;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = (-by_inf_f());
    for (int r0 = by_lane; r0 < 2; r0 += 32) {
      const float v = by_res0[(by_rl)*2 + (r0)];
      acc = by_max(acc, v);
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = by_max(acc, o);
    }
    if (by_lane == 0) by_st1[by_rl] = (float)((by_isneginf(acc) ? 0.0f : acc));
  }
  __syncthreads();
  for (int by_rl = by_warp / 1; by_rl < 1; by_rl += 8) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 4) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 2; by_rrem /= 2;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = 0.0f;
    for (int r0 = by_lane; r0 < 2; r0 += 32) {
      const float v = by_exp((by_res0[(by_rl)*2 + (r0)] - by_st1[(by_rl)]));
      acc = acc + v;
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    if (by_lane == 0) by_st2[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 2; by_lin += 256) {
    const int by_rl = by_lin / 2;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 4) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 2; by_rrem /= 2;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i2 = by_lin % 2;
    const float t0 = by_st2[(by_rl)];
    by_res[by_lin] = (float)(((t0 == 0.0f) ? 0.0f : (by_exp((by_res0[(by_rl)*2 + (i2)] - by_st1[(by_rl)])) / t0)));
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 8; by_lin += 256) {
    const int by_rl = by_lin / 8;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 4) break;
    int by_rrem = by_row;
    const int i2 = by_rrem % 2; by_rrem /= 2;
    const int i1 = by_rrem;
    (void)by_rrem;
    int by_crem = (by_lin % 8);
    const int i3 = by_crem % 8; by_crem /= 8;
    const int i0 = by_crem;
    (void)by_crem;
    float acc = 0.0f;
    for (int r0 = 0; r0 < 2; r0 += 1) {
      const float v = (by_res[(by_rl)*2 + (r0)] * in3[(i0)*32 + (i1)*16 + (r0)*8 + (i3)]);
      acc = acc + v;
    }
    out[i0 * 32 + i1 * 16 + i2 * 8 + i3 * 1] = (float)(acc);
  }
}
BY_KERNEL void __launch_bounds__(256) attention_pv_rows_k0(const float* __restrict__ in0, const float* __restrict__ in1, const bool* __restrict__ in2, const float* __restrict__ in3, float* __restrict__ out) {
  attention_pv_rows_k0_body(in0, in1, in2, in3, out, by_this_block());
}

// golden: test_averagepool_1d_default h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: avgpool_k0 grid=[2, 1, 1] block=[128, 1, 1] shared=512 params=[float out:float]

// ===== avgpool_k0 =====
BY_DEVICE void avgpool_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  const int tid = threadIdx.x;
  const int by_r = tid % 64, by_g = tid / 64;
  const int row = (int)by_block.idx.x * 64 + by_r;
  const bool active = row < 93;
  float by_racc = 0;
  const int i0 = 0;
  const int rowc = active ? row : 0;
  int by_rr = rowc;
  const int i2 = by_rr % 31; by_rr /= 31;
  const int i1 = by_rr;
  if (active) {
    #pragma unroll 4
    for (int k = by_g; k < 2; k += 2) {
      const int r0 = k;
      const float v = in0[(i0)*96 + (i1)*32 + ((i2 + r0))];
      by_racc = by_racc + v;
    }
  }
  float* const part = reinterpret_cast<float*>(by_smem);
  part[tid] = by_racc;
  __syncthreads();
  if (by_g != 0 || !active) return;
  for (int g = 1; g < 2; ++g) {
    const float other = part[g * 64 + by_r];
    by_racc = by_racc + other;
  }
  const float acc = by_racc;
  out[(i1)*31 + (i2)] = (float)((acc / 2.0f));
}
BY_KERNEL void __launch_bounds__(128) avgpool_k0(const float* __restrict__ in0, float* __restrict__ out) {
  avgpool_k0_body(in0, out, by_this_block());
}

// golden: test_basic_conv_with_padding h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: conv_k0 grid=[4, 1, 1] block=[128, 1, 1] shared=0 params=[float float out:float]

// ===== conv_k0 =====
BY_DEVICE void conv_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  const int tid = threadIdx.x;
  const int lane = tid % 16;
  const int row = (int)by_block.idx.x * 8 + tid / 16;
  const bool active = row < 25;
  float by_racc = 0;
  const int i0 = 0;
  const int i1 = 0;
  const int rowc = active ? row : 0;
  int by_rr = rowc;
  const int i3 = by_rr % 5; by_rr /= 5;
  const int i2 = by_rr;
  if (active) for (int k = lane; k < 9; k += 16) {
    int by_rk = k;
    const int r1 = by_rk % 3; by_rk /= 3;
    const int r0 = by_rk;
    const int t0 = ((i2 + r0) - (1ll));
    const int t1 = ((i3 + r1) - (1ll));
    const float v = ((((((t0 >= (0ll)) && (t0 < (5ll))) && (t1 >= (0ll))) && (t1 < (5ll))) ? in0[(i0)*25 + (t0)*5 + (t1)] : 0.0f) * in1[(i1)*9 + (r0)*3 + (r1)]);
    by_racc = by_racc + v;
  }
  for (int o = 8; o > 0; o >>= 1) {
    const float other = __shfl_xor_sync(0xFFFFFFFFu, by_racc, o);
    by_racc = by_racc + other;
  }
  if (active && lane == 0) {
    const float acc = by_racc;
    out[(i2)*5 + (i3)] = (float)(acc);
  }
}
BY_KERNEL void __launch_bounds__(128) conv_k0(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out) {
  conv_k0_body(in0, in1, out, by_this_block());
}

// golden: test_basic_deform_conv_with_padding h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: deform_conv_k0 grid=[1, 1, 1] block=[256, 1, 1] shared=0 params=[float float float out:float]

// ===== deform_conv_k0 =====
BY_DEVICE void deform_conv_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  const int tid = threadIdx.x;
  const int lane = tid % 1;
  const int row = (int)by_block.idx.x * 256 + tid / 1;
  const bool active = row < 16;
  float by_racc = 0;
  const int i0 = 0;
  const int i1 = 0;
  const int rowc = active ? row : 0;
  int by_rr = rowc;
  const int i3 = by_rr % 4; by_rr /= 4;
  const int i2 = by_rr;
  if (active) for (int k = lane; k < 4; k += 1) {
    int by_rk = k;
    const int r2 = by_rk % 2; by_rk /= 2;
    const int r1 = by_rk % 2; by_rk /= 2;
    const int r0 = by_rk;
    const int t0 = ((r1 * (2ll)) + r2);
    const int t1 = (((r0 * (4ll)) + t0) * (2ll));
    const float t2 = (((float)(((i2 - (1ll)) + (t0 / (2ll))))) + in1[(i0)*128 + (t1)*16 + (i2)*4 + (i3)]);
    const float t3 = by_floor(t2);
    const long long t4 = ((long long)(t3));
    const bool t5 = ((t4 >= (0ll)) && (t4 < (3ll)));
    const float t6 = (((float)(((i3 - (1ll)) + (t0 % (2ll))))) + in1[(i0)*128 + ((t1 + (1ll)))*16 + (i2)*4 + (i3)]);
    const float t7 = by_floor(t6);
    const long long t8 = ((long long)(t7));
    const bool t9 = ((t8 >= (0ll)) && (t8 < (3ll)));
    const float t10 = (t2 - t3);
    const float t11 = (1.0f - t10);
    const float t12 = (t6 - t7);
    const float t13 = (1.0f - t12);
    const long long t14 = (t8 + (1ll));
    const bool t15 = ((t14 >= (0ll)) && (t14 < (3ll)));
    const long long t16 = (t4 + (1ll));
    const bool t17 = ((t16 >= (0ll)) && (t16 < (3ll)));
    const float v = (((((((t5 && t9) ? in0[(i0)*9 + (r0)*9 + (t4)*3 + (t8)] : 0.0f) * (t11 * t13)) + (((t5 && t15) ? in0[(i0)*9 + (r0)*9 + (t4)*3 + (t14)] : 0.0f) * (t11 * t12))) + (((t17 && t9) ? in0[(i0)*9 + (r0)*9 + (t16)*3 + (t8)] : 0.0f) * (t10 * t13))) + (((t17 && t15) ? in0[(i0)*9 + (r0)*9 + (t16)*3 + (t14)] : 0.0f) * (t10 * t12))) * in2[(i1)*4 + (r0)*4 + (r1)*2 + (r2)]);
    by_racc = by_racc + v;
  }
  if (active && lane == 0) {
    const float acc = by_racc;
    out[(i2)*4 + (i3)] = (float)(acc);
  }
}
BY_KERNEL void __launch_bounds__(256) deform_conv_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  deform_conv_k0_body(in0, in1, in2, out, by_this_block());
}

// golden: test_batchnorm_epsilon h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: batchnorm_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float float float float out:float]

// ===== batchnorm_k0 =====
BY_DEVICE void batchnorm_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 30; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i3 = by_rem % 5; by_rem /= 5;
        const int i2 = by_rem % 4; by_rem /= 4;
        const int i1 = by_rem % 3; by_rem /= 3;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*60 + (i1)*20 + (i2)*5 + (i3)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        const float by_s0 = in3[(i1)];
        const float by_s1 = in4[(i1)];
        const float by_s2 = in1[(i1)];
        const float by_s3 = in2[(i1)];
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(((((by_e0[by_j] - by_s0) / by_sqrt((by_s1 + 0.009999999776482582f))) * by_s2) + by_s3));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 30) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i3 = by_rem % 5; by_rem /= 5;
          const int i2 = by_rem % 4; by_rem /= 4;
          const int i1 = by_rem % 3; by_rem /= 3;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*60 + (i1)*20 + (i2)*5 + (i3)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const float by_s0 = in3[(i1)];
          const float by_s1 = in4[(i1)];
          const float by_s2 = in1[(i1)];
          const float by_s3 = in2[(i1)];
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(((((by_e0[by_j] - by_s0) / by_sqrt((by_s1 + 0.009999999776482582f))) * by_s2) + by_s3));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 30) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i3 = by_rem % 5; by_rem /= 5;
          const int i2 = by_rem % 4; by_rem /= 4;
          const int i1 = by_rem % 3; by_rem /= 3;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*60 + (i1)*20 + (i2)*5 + (i3)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const float by_s0 = in3[(i1)];
          const float by_s1 = in4[(i1)];
          const float by_s2 = in1[(i1)];
          const float by_s3 = in2[(i1)];
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(((((by_e0[by_j] - by_s0) / by_sqrt((by_s1 + 0.009999999776482582f))) * by_s2) + by_s3));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 30) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i3 = by_rem % 5; by_rem /= 5;
          const int i2 = by_rem % 4; by_rem /= 4;
          const int i1 = by_rem % 3; by_rem /= 3;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*60 + (i1)*20 + (i2)*5 + (i3)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const float by_s0 = in3[(i1)];
          const float by_s1 = in4[(i1)];
          const float by_s2 = in1[(i1)];
          const float by_s3 = in2[(i1)];
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(((((by_e0[by_j] - by_s0) / by_sqrt((by_s1 + 0.009999999776482582f))) * by_s2) + by_s3));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 120; by_lin += by_step) {
      int by_rem = by_lin;
      const int i3 = by_rem % 5; by_rem /= 5;
      const int i2 = by_rem % 4; by_rem /= 4;
      const int i1 = by_rem % 3; by_rem /= 3;
      const int i0 = by_rem;
      out[(i0)*60 + (i1)*20 + (i2)*5 + (i3)] = (float)(((((in0[(i0)*60 + (i1)*20 + (i2)*5 + (i3)] - in3[(i1)]) / by_sqrt((in4[(i1)] + 0.009999999776482582f))) * in1[(i1)]) + in2[(i1)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) batchnorm_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ out) {
  batchnorm_k0_body(in0, in1, in2, in3, in4, out, by_this_block());
}

// golden: test_bernoulli h100 fp32
// refused: unsupported_op

// golden: test_bitcast_2d_float32_to_int32 h100 fp32
// 0 launches, 0 distinct kernels

// golden: test_bitshift_left_int16 h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: bitshift_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[short short out:short]

// ===== bitshift_k0 =====
BY_DEVICE void bitshift_k0_body(const short* __restrict__ in0, const short* __restrict__ in1, short* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 3; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 3) break;
      const int i0 = lin;
      const short t0 = in1[(i0)];
      out[(i0)] = (short)((((t0 >= ((short)0)) && (t0 < ((short)16))) ? ((short)((((unsigned short)(in0[(i0)])) << ((unsigned short)(t0))))) : ((short)0)));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) bitshift_k0(const short* __restrict__ in0, const short* __restrict__ in1, short* __restrict__ out) {
  bitshift_k0_body(in0, in1, out, by_this_block());
}

// golden: test_bitwise_and_i16_3d h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: bitwiseand_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[short short out:short]

// ===== bitwiseand_k0 =====
BY_DEVICE void bitwiseand_k0_body(const short* __restrict__ in0, const short* __restrict__ in1, short* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0) | (unsigned long long)(in1)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 7; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 8;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const short* const by_e0 = reinterpret_cast<const short*>(&by_r0);
        const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
        const short* const by_e1 = reinterpret_cast<const short*>(&by_r1);
        uint4 by_o;
        short* const by_oe = reinterpret_cast<short*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 8; ++by_j) {
          by_oe[by_j] = (short)((by_e0[by_j] & by_e1[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 7) {
          const int by_lin = by_q * 8;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const short* const by_e0 = reinterpret_cast<const short*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
          const short* const by_e1 = reinterpret_cast<const short*>(&by_r1);
          uint4 by_o;
          short* const by_oe = reinterpret_cast<short*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 8; ++by_j) {
            by_oe[by_j] = (short)((by_e0[by_j] & by_e1[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 7) {
          const int by_lin = by_q * 8;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const short* const by_e0 = reinterpret_cast<const short*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
          const short* const by_e1 = reinterpret_cast<const short*>(&by_r1);
          uint4 by_o;
          short* const by_oe = reinterpret_cast<short*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 8; ++by_j) {
            by_oe[by_j] = (short)((by_e0[by_j] & by_e1[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 7) {
          const int by_lin = by_q * 8;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const short* const by_e0 = reinterpret_cast<const short*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
          const short* const by_e1 = reinterpret_cast<const short*>(&by_r1);
          uint4 by_o;
          short* const by_oe = reinterpret_cast<short*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 8; ++by_j) {
            by_oe[by_j] = (short)((by_e0[by_j] & by_e1[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
    for (int by_lin = 56 + by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (short)((in0[(i0)*20 + (i1)*5 + (i2)] & in1[(i0)*20 + (i1)*5 + (i2)]));
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (short)((in0[(i0)*20 + (i1)*5 + (i2)] & in1[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) bitwiseand_k0(const short* __restrict__ in0, const short* __restrict__ in1, short* __restrict__ out) {
  bitwiseand_k0_body(in0, in1, out, by_this_block());
}

// golden: test_bitwise_not_2d h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: bitwisenot_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[int out:int]

// ===== bitwisenot_k0 =====
BY_DEVICE void bitwisenot_k0_body(const int* __restrict__ in0, int* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 3; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*4 + (i1)));
        const int* const by_e0 = reinterpret_cast<const int*>(&by_r0);
        uint4 by_o;
        int* const by_oe = reinterpret_cast<int*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (int)(((int)~by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 3) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*4 + (i1)));
          const int* const by_e0 = reinterpret_cast<const int*>(&by_r0);
          uint4 by_o;
          int* const by_oe = reinterpret_cast<int*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (int)(((int)~by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 3) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*4 + (i1)));
          const int* const by_e0 = reinterpret_cast<const int*>(&by_r0);
          uint4 by_o;
          int* const by_oe = reinterpret_cast<int*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (int)(((int)~by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 3) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*4 + (i1)));
          const int* const by_e0 = reinterpret_cast<const int*>(&by_r0);
          uint4 by_o;
          int* const by_oe = reinterpret_cast<int*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (int)(((int)~by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 12; by_lin += by_step) {
      int by_rem = by_lin;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*4 + (i1)] = (int)(((int)~in0[(i0)*4 + (i1)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) bitwisenot_k0(const int* __restrict__ in0, int* __restrict__ out) {
  bitwisenot_k0_body(in0, out, by_this_block());
}

// golden: test_bitwise_or_i16_4d h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: bitwiseor_k0 grid=[2, 1, 1] block=[256, 1, 1] shared=0 params=[signed char signed char out:signed char]

// ===== bitwiseor_k0 =====
BY_DEVICE void bitwiseor_k0_body(const signed char* __restrict__ in0, const signed char* __restrict__ in1, signed char* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 256 + threadIdx.x; base < 360; base += (int)by_block.grid.x * 256) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 256;
      if (lin >= 360) break;
      int by_rem = lin;
      const int i3 = by_rem % 6; by_rem /= 6;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*120 + (i1)*30 + (i2)*6 + (i3)] = (signed char)((in0[(i0)*120 + (i1)*30 + (i2)*6 + (i3)] | in1[(i0)*120 + (i1)*30 + (i2)*6 + (i3)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(256) bitwiseor_k0(const signed char* __restrict__ in0, const signed char* __restrict__ in1, signed char* __restrict__ out) {
  bitwiseor_k0_body(in0, in1, out, by_this_block());
}

// golden: test_bitwise_xor_i16_3d h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: bitwisexor_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[short short out:short]

// ===== bitwisexor_k0 =====
BY_DEVICE void bitwisexor_k0_body(const short* __restrict__ in0, const short* __restrict__ in1, short* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0) | (unsigned long long)(in1)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 7; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 8;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const short* const by_e0 = reinterpret_cast<const short*>(&by_r0);
        const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
        const short* const by_e1 = reinterpret_cast<const short*>(&by_r1);
        uint4 by_o;
        short* const by_oe = reinterpret_cast<short*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 8; ++by_j) {
          by_oe[by_j] = (short)((by_e0[by_j] ^ by_e1[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 7) {
          const int by_lin = by_q * 8;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const short* const by_e0 = reinterpret_cast<const short*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
          const short* const by_e1 = reinterpret_cast<const short*>(&by_r1);
          uint4 by_o;
          short* const by_oe = reinterpret_cast<short*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 8; ++by_j) {
            by_oe[by_j] = (short)((by_e0[by_j] ^ by_e1[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 7) {
          const int by_lin = by_q * 8;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const short* const by_e0 = reinterpret_cast<const short*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
          const short* const by_e1 = reinterpret_cast<const short*>(&by_r1);
          uint4 by_o;
          short* const by_oe = reinterpret_cast<short*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 8; ++by_j) {
            by_oe[by_j] = (short)((by_e0[by_j] ^ by_e1[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 7) {
          const int by_lin = by_q * 8;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const short* const by_e0 = reinterpret_cast<const short*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
          const short* const by_e1 = reinterpret_cast<const short*>(&by_r1);
          uint4 by_o;
          short* const by_oe = reinterpret_cast<short*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 8; ++by_j) {
            by_oe[by_j] = (short)((by_e0[by_j] ^ by_e1[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
    for (int by_lin = 56 + by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (short)((in0[(i0)*20 + (i1)*5 + (i2)] ^ in1[(i0)*20 + (i1)*5 + (i2)]));
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (short)((in0[(i0)*20 + (i1)*5 + (i2)] ^ in1[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) bitwisexor_k0(const short* __restrict__ in0, const short* __restrict__ in1, short* __restrict__ out) {
  bitwisexor_k0_body(in0, in1, out, by_this_block());
}

// golden: test_blackmanwindow h100 fp32
// refused: shape

// golden: test_cast_BFLOAT16_to_FLOAT h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: cast_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[by_bfloat16 out:float]

// ===== cast_k0 =====
BY_DEVICE void cast_k0_body(const by_bfloat16* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 12; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 12) break;
      int by_rem = lin;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*4 + (i1)] = (float)(((float)(((float)in0[(i0)*4 + (i1)]))));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) cast_k0(const by_bfloat16* __restrict__ in0, float* __restrict__ out) {
  cast_k0_body(in0, out, by_this_block());
}

// golden: test_castlike_BFLOAT16_to_FLOAT h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: castlike_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[by_bfloat16 out:float]

// ===== castlike_k0 =====
BY_DEVICE void castlike_k0_body(const by_bfloat16* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 12; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 12) break;
      int by_rem = lin;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*4 + (i1)] = (float)(((float)(((float)in0[(i0)*4 + (i1)]))));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) castlike_k0(const by_bfloat16* __restrict__ in0, float* __restrict__ out) {
  castlike_k0_body(in0, out, by_this_block());
}

// golden: test_causal_conv_with_state_b1_c1_degenerate h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: colaunch_k0 grid=[2, 1, 1] block=[512, 1, 1] shared=0 params=[float float out:float float float out:float]

// ===== colaunch_k0 =====
BY_DEVICE void causal_conv_f36654787306e5a4_w256_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  const int tid = threadIdx.x;
  const int lane = tid % 1;
  const int row = (int)by_block.idx.x * 256 + tid / 1;
  const bool active = row < 6;
  float by_racc = 0;
  const int i0 = 0;
  const int i1 = 0;
  const int rowc = active ? row : 0;
  const int i2 = rowc;
  if (active) for (int k = lane; k < 4; k += 1) {
    const int r0 = k;
    const int t0 = (i2 + r0);
    const float v = (in1[(i1)*4 + (r0)] * ((t0 < (3ll)) ? 0.0f : in0[(i0)*6 + (i1)*6 + ((t0 - (3ll)))]));
    by_racc = by_racc + v;
  }
  if (active && lane == 0) {
    const float acc = by_racc;
    out[(i2)] = (float)(acc);
  }
}
BY_DEVICE void causal_conv_state_d1cdd9c351e6f314_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 3; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 3) break;
      const int i0 = 0;
      const int i1 = 0;
      const int i2 = lin;
      const int t0 = (i2 + (6ll));
      out[(i2)] = (float)(((t0 < (3ll)) ? 0.0f : in0[(i0)*6 + (i1)*6 + ((t0 - (3ll)))]));
    }
  }
}
BY_DEVICE void colaunch_k0_body(const float* __restrict__ m0_in0, const float* __restrict__ m0_in1, float* __restrict__ m0_out, const float* __restrict__ m1_in0, const float* __restrict__ m1_in1, float* __restrict__ m1_out, const by_block_index by_block) {
  const unsigned int by_b = by_block.idx.x;
  if (by_b < 1u) { if (threadIdx.x < 256u) causal_conv_f36654787306e5a4_w256_body(m0_in0, m0_in1, m0_out, by_block_at(by_b - 0u, dim3(1, 1, 1))); }
  else if (by_b < 2u) causal_conv_state_d1cdd9c351e6f314_body(m1_in0, m1_in1, m1_out, by_block_at(by_b - 1u, dim3(1, 1, 1)));
}
BY_KERNEL void __launch_bounds__(512) colaunch_k0(const float* __restrict__ m0_in0, const float* __restrict__ m0_in1, float* __restrict__ m0_out, const float* __restrict__ m1_in0, const float* __restrict__ m1_in1, float* __restrict__ m1_out) {
  colaunch_k0_body(m0_in0, m0_in1, m0_out, m1_in0, m1_in1, m1_out, by_this_block());
}

// golden: test_ceil h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: ceil_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== ceil_k0 =====
BY_DEVICE void ceil_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_ceil(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_ceil(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_ceil(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_ceil(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_ceil(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) ceil_k0(const float* __restrict__ in0, float* __restrict__ out) {
  ceil_k0_body(in0, out, by_this_block());
}

// golden: test_celu h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: celu_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== celu_k0 =====
BY_DEVICE void celu_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  const int i3 = 0;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 6; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 3; by_rem /= 3;
        const int i1 = by_rem % 3; by_rem /= 3;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*9 + (i1)*3 + (i2) + (i3)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          const float t0 = by_e0[by_j];
          by_oe[by_j] = (float)((by_max(t0, 0.0f) + by_min((by_expm1((t0 / 2.0f)) * 2.0f), 0.0f)));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 6) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 3; by_rem /= 3;
          const int i1 = by_rem % 3; by_rem /= 3;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*9 + (i1)*3 + (i2) + (i3)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)((by_max(t0, 0.0f) + by_min((by_expm1((t0 / 2.0f)) * 2.0f), 0.0f)));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 6) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 3; by_rem /= 3;
          const int i1 = by_rem % 3; by_rem /= 3;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*9 + (i1)*3 + (i2) + (i3)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)((by_max(t0, 0.0f) + by_min((by_expm1((t0 / 2.0f)) * 2.0f), 0.0f)));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 6) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 3; by_rem /= 3;
          const int i1 = by_rem % 3; by_rem /= 3;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*9 + (i1)*3 + (i2) + (i3)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)((by_max(t0, 0.0f) + by_min((by_expm1((t0 / 2.0f)) * 2.0f), 0.0f)));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
    for (int by_lin = 24 + by_tid; by_lin < 27; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 3; by_rem /= 3;
      const int i1 = by_rem % 3; by_rem /= 3;
      const int i0 = by_rem;
      const float t0 = in0[(i0)*9 + (i1)*3 + (i2) + (i3)];
      out[(i0)*9 + (i1)*3 + (i2)] = (float)((by_max(t0, 0.0f) + by_min((by_expm1((t0 / 2.0f)) * 2.0f), 0.0f)));
    }
  } else {
    for (int by_lin = by_tid; by_lin < 27; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 3; by_rem /= 3;
      const int i1 = by_rem % 3; by_rem /= 3;
      const int i0 = by_rem;
      const float t0 = in0[(i0)*9 + (i1)*3 + (i2) + (i3)];
      out[(i0)*9 + (i1)*3 + (i2)] = (float)((by_max(t0, 0.0f) + by_min((by_expm1((t0 / 2.0f)) * 2.0f), 0.0f)));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) celu_k0(const float* __restrict__ in0, float* __restrict__ out) {
  celu_k0_body(in0, out, by_this_block());
}

// golden: test_center_crop_pad_crop h100 fp32
// refused: shape

// golden: test_clip h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: clip_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float float out:float]

// ===== clip_k0 =====
BY_DEVICE void clip_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        const float by_s0 = in1[0];
        const float by_s1 = in2[0];
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_min(by_max(by_e0[by_j], by_s0), by_s1));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const float by_s0 = in1[0];
          const float by_s1 = in2[0];
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_min(by_max(by_e0[by_j], by_s0), by_s1));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const float by_s0 = in1[0];
          const float by_s1 = in2[0];
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_min(by_max(by_e0[by_j], by_s0), by_s1));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const float by_s0 = in1[0];
          const float by_s1 = in2[0];
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_min(by_max(by_e0[by_j], by_s0), by_s1));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_min(by_max(in0[(i0)*20 + (i1)*5 + (i2)], in1[0]), in2[0]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) clip_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  clip_k0_body(in0, in1, in2, out, by_this_block());
}

// golden: test_clip_default_inbounds_expanded h100 fp32
// 0 launches, 0 distinct kernels

// golden: test_col2im h100 fp32
// refused: shape

// golden: test_compress_0 h100 fp32
// 2 launches, 2 distinct kernels
// launch 0: nonzero_k0 grid=[1, 1, 1] block=[256, 1, 1] shared=2056 params=[bool out:long long out:long long]
// launch 1: compress_gather_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float long long out:float]

// ===== nonzero_k0 =====
BY_DEVICE void nonzero_k0_body(const bool* __restrict__ x, long long* __restrict__ y, long long* __restrict__ count, const by_block_index by_block) {
  constexpr long long N = 3, RUN = 1;
  BY_SHARED_BUFFER(smem);
  long long* first = (long long*)smem;
  const long long lo = threadIdx.x * RUN, hi = by_min(lo + RUN, N);
  long long mine = 0;
  for (long long f = lo; f < hi; ++f) mine += ((bool)x[f] != (bool)0);
  first[threadIdx.x] = mine;
  __syncthreads();
  if (threadIdx.x == 0) {
    long long total = 0;
    for (int k = 0; k < blockDim.x; ++k) { const long long c = first[k]; first[k] = total; total += c; }
    first[blockDim.x] = total;
  }
  __syncthreads();
  long long at = first[threadIdx.x];
  for (long long f = lo; f < hi; ++f) {
    if ((bool)x[f] != (bool)0) {
      long long rest = f;
      y[0ll * N + at] = rest % 3ll; rest /= 3ll;
      ++at;
    }
  }
  const long long total = first[blockDim.x];
  for (long long e = threadIdx.x; e < 1ll * (N - total); e += blockDim.x)
    y[(e / (N - total)) * N + total + e % (N - total)] = 0;
  if (threadIdx.x == 0) count[0] = total;
}
BY_KERNEL void __launch_bounds__(256) nonzero_k0(const bool* __restrict__ x, long long* __restrict__ y, long long* __restrict__ count) {
  nonzero_k0_body(x, y, count, by_this_block());
}

// ===== compress_gather_k0 =====
BY_DEVICE void compress_gather_k0_body(const float* __restrict__ in0, const long long* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 6; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 6) break;
      int by_rem = lin;
      const int i1 = by_rem % 2; by_rem /= 2;
      const int i0 = by_rem;
      out[(i0)*2 + (i1)] = (float)(in0[(in1[(i0)])*2 + (i1)]);
    }
  }
}
BY_KERNEL void __launch_bounds__(512) compress_gather_k0(const float* __restrict__ in0, const long long* __restrict__ in1, float* __restrict__ out) {
  compress_gather_k0_body(in0, in1, out, by_this_block());
}

// golden: test_concat_1d_axis_0 h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: concat_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float out:float]

// ===== concat_k0 =====
BY_DEVICE void concat_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 4; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 4) break;
      const int i0 = lin;
      out[(i0)] = (float)(((i0 < (2ll)) ? in0[(i0)] : in1[((i0 - (2ll)))]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) concat_k0(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out) {
  concat_k0_body(in0, in1, out, by_this_block());
}

// golden: test_constant h100 fp32
// 0 launches, 0 distinct kernels

// golden: test_constant_pad h100 fp32
// refused: shape

// golden: test_constantofshape_float_ones h100 fp32
// refused: shape

// golden: test_convinteger_with_padding h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: conv_integer_k0 grid=[1, 1, 1] block=[32, 1, 1] shared=288 params=[unsigned char unsigned char unsigned char unsigned char out:int]

// ===== conv_integer_k0 =====
BY_DEVICE void conv_integer_k0_body(const unsigned char* __restrict__ in0, const unsigned char* __restrict__ in1, const unsigned char* __restrict__ in2, const unsigned char* __restrict__ in3, int* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  int* const by_as = reinterpret_cast<int*>(by_smem);
  int* const by_bs = by_as + 8;
  const int tid = threadIdx.x;
  const int tx = tid % 16;
  const int ty = tid / 16;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 1) * 16; by_blk /= 1;
  const int by_m0 = (by_blk % 1) * 2; by_blk /= 1;
  const int i0 = 0;
  int by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  for (int kt = 0; kt < 1; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 8; e += 32) {
      const int kk = e % 4; const int rr = e / 4;
      const int gr = by_ar0 + rr; const int gk = kt * 4 + kk;
      int v = 0;
      {
        const int i1 = gr;
        int by_rk = gk;
        const int r1 = by_rk % 2; by_rk /= 2;
        const int r0 = by_rk;
        v = (((int)(in1[(i1)*4 + (r0)*2 + (r1)])) - ((int)(in3[(i1)])));
      }
      by_as[kk * 2 + rr] = v;
    }
    for (int e = tid; e < 64; e += 32) {
      const int rr = e % 16; const int kk = e / 16;
      const int gr = by_br0 + rr; const int gk = kt * 4 + kk;
      int v = 0;
      {
        int by_rm = gr;
        const int i3 = by_rm % 4; by_rm /= 4;
        const int i2 = by_rm;
        int by_rk = gk;
        const int r1 = by_rk % 2; by_rk /= 2;
        const int r0 = by_rk;
        const int t0 = ((i2 + r0) - (1ll));
        const int t1 = ((i3 + r1) - (1ll));
        v = (((((t0 >= (0ll)) && (t0 < (3ll))) && (t1 >= (0ll))) && (t1 < (3ll))) ? (((int)(in0[(i0)*9 + (t0)*3 + (t1)])) - ((int)(in2[0]))) : ((int)0));
      }
      by_bs[kk * 16 + rr] = v;
    }
    __syncthreads();
    const int* const as = by_as + cur * 8;
    const int* const bs = by_bs + cur * 64;
    #pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      int a[1], b[1];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 2 + ty + (i) * 2];
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
    const int gm = by_m0 + ty + (i) * 2;
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 16;
      int by_en = gn;
      const int i3 = by_en % 4; by_en /= 4;
      const int i2 = by_en;
      const int acc = by_acc[i][j];
      out[(i1)*16 + (i2)*4 + (i3)] = (int)(acc);
    }
  }
}
BY_KERNEL void conv_integer_k0(const unsigned char* __restrict__ in0, const unsigned char* __restrict__ in1, const unsigned char* __restrict__ in2, const unsigned char* __restrict__ in3, int* __restrict__ out) {
  conv_integer_k0_body(in0, in1, in2, in3, out, by_this_block());
}

// golden: test_convtranspose h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: conv_transpose_k0 grid=[1, 1, 1] block=[64, 1, 1] shared=2176 params=[float float out:float]

// ===== conv_transpose_k0 =====
BY_DEVICE void conv_transpose_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 32;
  const int tid = threadIdx.x;
  const int tx = tid % 32;
  const int ty = tid / 32;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 1) * 32; by_blk /= 1;
  const int by_m0 = (by_blk % 1) * 2; by_blk /= 1;
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
      const int kk = e % 16; const int rr = e / 16;
      const int gr = by_ar0 + rr; const int gk = kt * 16 + kk;
      float v = 0;
      if (gk < 9) {
        const int i1 = gr;
        int by_rk = gk;
        const int r1 = by_rk % 3; by_rk /= 3;
        const int r0 = by_rk;
        v = in1[(i1)*9 + (r0)*3 + (r1)];
      }
      by_as[kk * 2 + rr] = v;
    }
    for (int e = tid; e < 512; e += 64) {
      const int rr = e % 32; const int kk = e / 32;
      const int gr = by_br0 + rr; const int gk = kt * 16 + kk;
      float v = 0;
      if (gr < 25 && gk < 9) {
        int by_rm = gr;
        const int i3 = by_rm % 5; by_rm /= 5;
        const int i2 = by_rm;
        int by_rk = gk;
        const int r1 = by_rk % 3; by_rk /= 3;
        const int r0 = by_rk;
        const int t0 = (i2 - r0);
        const int t1 = (i3 - r1);
        v = (((((t0 >= (0ll)) && (t0 < (3ll))) && (t1 >= (0ll))) && (t1 < (3ll))) ? in0[(i0)*9 + (t0)*3 + (t1)] : 0.0f);
      }
      by_bs[kk * 32 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 32;
    const float* const bs = by_bs + cur * 512;
    #pragma unroll
    for (int kk = 0; kk < 16; ++kk) {
      float a[1], b[1];
      #pragma unroll
      for (int i = 0; i < 1; ++i) a[i] = as[kk * 2 + ty + (i) * 2];
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
    const int gm = by_m0 + ty + (i) * 2;
    const int i1 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 32;
      if (gn >= 25) continue;
      int by_en = gn;
      const int i3 = by_en % 5; by_en /= 5;
      const int i2 = by_en;
      const float acc = by_acc[i][j];
      out[(i1)*25 + (i2)*5 + (i3)] = (float)(acc);
    }
  }
}
BY_KERNEL void conv_transpose_k0(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out) {
  conv_transpose_k0_body(in0, in1, out, by_this_block());
}

// golden: test_cos h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: cos_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== cos_k0 =====
BY_DEVICE void cos_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_cos(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_cos(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_cos(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_cos(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_cos(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) cos_k0(const float* __restrict__ in0, float* __restrict__ out) {
  cos_k0_body(in0, out, by_this_block());
}

// golden: test_cosh h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: cosh_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== cosh_k0 =====
BY_DEVICE void cosh_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_cosh(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_cosh(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_cosh(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_cosh(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_cosh(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) cosh_k0(const float* __restrict__ in0, float* __restrict__ out) {
  cosh_k0_body(in0, out, by_this_block());
}

// golden: test_cumprod_1d h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: cumprod_any_axis_k0 grid=[1, 1, 1] block=[256, 1, 1] shared=0 params=[double int out:double]

// ===== cumprod_any_axis_k0 =====
BY_DEVICE void cumprod_any_axis_k0_body(const double* __restrict__ in0, const int* __restrict__ in1, double* __restrict__ out, const by_block_index by_block) {
  const int tid = threadIdx.x;
  const int lane = tid % 1;
  const int row = (int)by_block.idx.x * 256 + tid / 1;
  const bool active = row < 5;
  double by_racc = 1;
  const int rowc = active ? row : 0;
  const int i0 = rowc;
  if (active) for (int k = lane; k < 5; k += 1) {
    const int r0 = k;
    const long long t0 = ((long long)(in1[0]));
    const double v = ((((((t0 < (0ll)) ? (t0 + (1ll)) : t0) == (0ll)) && (r0 < (5ll))) && (r0 <= i0)) ? in0[(r0)] : 1.0);
    by_racc = by_racc * v;
  }
  if (active && lane == 0) {
    const double acc = by_racc;
    out[(i0)] = (double)(acc);
  }
}
BY_KERNEL void __launch_bounds__(256) cumprod_any_axis_k0(const double* __restrict__ in0, const int* __restrict__ in1, double* __restrict__ out) {
  cumprod_any_axis_k0_body(in0, in1, out, by_this_block());
}

// golden: test_cumsum_1d h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: cumsum_any_axis_k0 grid=[1, 1, 1] block=[256, 1, 1] shared=0 params=[double int out:double]

// ===== cumsum_any_axis_k0 =====
BY_DEVICE void cumsum_any_axis_k0_body(const double* __restrict__ in0, const int* __restrict__ in1, double* __restrict__ out, const by_block_index by_block) {
  const int tid = threadIdx.x;
  const int lane = tid % 1;
  const int row = (int)by_block.idx.x * 256 + tid / 1;
  const bool active = row < 5;
  double by_racc = 0;
  const int rowc = active ? row : 0;
  const int i0 = rowc;
  if (active) for (int k = lane; k < 5; k += 1) {
    const int r0 = k;
    const long long t0 = ((long long)(in1[0]));
    const double v = ((((((t0 < (0ll)) ? (t0 + (1ll)) : t0) == (0ll)) && (r0 < (5ll))) && (r0 <= i0)) ? in0[(r0)] : 0.0);
    by_racc = by_racc + v;
  }
  if (active && lane == 0) {
    const double acc = by_racc;
    out[(i0)] = (double)(acc);
  }
}
BY_KERNEL void __launch_bounds__(256) cumsum_any_axis_k0(const double* __restrict__ in0, const int* __restrict__ in1, double* __restrict__ out) {
  cumsum_any_axis_k0_body(in0, in1, out, by_this_block());
}

// golden: test_depthtospace_crd_mode_example h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: depth_to_space_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== depth_to_space_k0 =====
BY_DEVICE void depth_to_space_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 48; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 48) break;
      const int i0 = 0;
      int by_rem = lin;
      const int i3 = by_rem % 6; by_rem /= 6;
      const int i2 = by_rem % 4; by_rem /= 4;
      const int i1 = by_rem;
      out[(i1)*24 + (i2)*6 + (i3)] = (float)(in0[(i0)*48 + ((((i1 * (4ll)) + ((i2 % (2ll)) * (2ll))) + (i3 % (2ll))))*6 + ((i2 / (2ll)))*3 + ((i3 / (2ll)))]);
    }
  }
}
BY_KERNEL void __launch_bounds__(512) depth_to_space_k0(const float* __restrict__ in0, float* __restrict__ out) {
  depth_to_space_k0_body(in0, out, by_this_block());
}

// golden: test_dequantizelinear h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: dequantize_linear_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[unsigned char float unsigned char out:float]

// ===== dequantize_linear_k0 =====
BY_DEVICE void dequantize_linear_k0_body(const unsigned char* __restrict__ in0, const float* __restrict__ in1, const unsigned char* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 4; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 4) break;
      const int i0 = lin;
      out[(i0)] = (float)(((((float)(in0[(i0)])) - ((float)(in2[0]))) * in1[0]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) dequantize_linear_k0(const unsigned char* __restrict__ in0, const float* __restrict__ in1, const unsigned char* __restrict__ in2, float* __restrict__ out) {
  dequantize_linear_k0_body(in0, in1, in2, out, by_this_block());
}

// golden: test_det_2d h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: det_lu_k0 grid=[1, 1, 1] block=[128, 1, 1] shared=0 params=[float out:double out:float]

// ===== det_lu_k0 =====
BY_DEVICE void det_lu_k0_body(const float* __restrict__ X, double* __restrict__ A,
    float* __restrict__ Y, const by_block_index by_block) {
  for (long long b = (long long)by_block.idx.x * blockDim.x + threadIdx.x; b < 1ll; b += (long long)by_block.grid.x * blockDim.x) {
    double* a = A + b * 4ll;
    const float* src = X + b * 4ll;
    for (long long k = 0; k < 4ll; ++k) a[k] = (double)(float)src[k];
    double det = 1.0;
    for (long long j = 0; j < 2ll && det != 0.0; ++j) {
      long long piv = j;
      double best = a[j * 2 + j] < 0 ? -a[j * 2 + j] : a[j * 2 + j];
      for (long long i = j + 1; i < 2ll; ++i) {
        const double v = a[i * 2 + j] < 0 ? -a[i * 2 + j] : a[i * 2 + j];
        if (v > best) { best = v; piv = i; }
      }
      if (best == 0.0) { det = 0.0; break; }
      if (piv != j) {
        for (long long k = 0; k < 2ll; ++k) { const double t = a[j * 2 + k]; a[j * 2 + k] = a[piv * 2 + k]; a[piv * 2 + k] = t; }
        det = -det;
      }
      const double d = a[j * 2 + j];
      det *= d;
      for (long long i = j + 1; i < 2ll; ++i) {
        const double f = a[i * 2 + j] / d;
        for (long long k = j + 1; k < 2ll; ++k) a[i * 2 + k] -= f * a[j * 2 + k];
      }
    }
    Y[b] = (float)(float)det;
  }
}
BY_KERNEL void det_lu_k0(const float* __restrict__ X, double* __restrict__ A,
    float* __restrict__ Y) {
  det_lu_k0_body(X, A, Y, by_this_block());
}

// golden: test_dft h100 fp32
// refused: unsupported_op

// golden: test_div h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: div_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float out:float]

// ===== div_k0 =====
BY_DEVICE void div_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0) | (unsigned long long)(in1)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)((by_e0[by_j] / by_e1[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)((by_e0[by_j] / by_e1[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)((by_e0[by_j] / by_e1[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)((by_e0[by_j] / by_e1[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)((in0[(i0)*20 + (i1)*5 + (i2)] / in1[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) div_k0(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out) {
  div_k0_body(in0, in1, out, by_this_block());
}

// golden: test_dropout_default h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: dropout_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== dropout_k0 =====
BY_DEVICE void dropout_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_e0[by_j]);
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_e0[by_j]);
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_e0[by_j]);
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_e0[by_j]);
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(in0[(i0)*20 + (i1)*5 + (i2)]);
    }
  }
}
BY_KERNEL void __launch_bounds__(512) dropout_k0(const float* __restrict__ in0, float* __restrict__ out) {
  dropout_k0_body(in0, out, by_this_block());
}

// golden: test_dynamicquantizelinear h100 fp32
// 2 launches, 2 distinct kernels
// launch 0: colaunch_k0 grid=[2, 1, 1] block=[256, 1, 1] shared=0 params=[float out:float float out:float]
// launch 1: colaunch_k1 grid=[3, 1, 1] block=[512, 1, 1] shared=0 params=[float float float out:unsigned char float float out:float float float out:unsigned char]

// ===== colaunch_k0 =====
BY_DEVICE void dynamic_quantize_min_2a8cc6a5f7a3fda2_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const int tid = threadIdx.x;
  const int lane = tid % 1;
  const int row = (int)by_block.idx.x * 256 + tid / 1;
  const bool active = row < 1;
  float by_racc = 0;
  int have = 0;
  const int rowc = active ? row : 0;
  if (active) for (int k = lane; k < 6; k += 1) {
    const int r0 = k;
    const float v = in0[(r0)];
    by_racc = have ? by_min(by_racc, v) : v; have = 1;
  }
  if (active && lane == 0) {
    (void)have;
    const float acc = by_racc;
    out[0] = (float)(acc);
  }
}
BY_DEVICE void dynamic_quantize_max_6cede2cc126407c8_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const int tid = threadIdx.x;
  const int lane = tid % 1;
  const int row = (int)by_block.idx.x * 256 + tid / 1;
  const bool active = row < 1;
  float by_racc = 0;
  int have = 0;
  const int rowc = active ? row : 0;
  if (active) for (int k = lane; k < 6; k += 1) {
    const int r0 = k;
    const float v = in0[(r0)];
    by_racc = have ? by_max(by_racc, v) : v; have = 1;
  }
  if (active && lane == 0) {
    (void)have;
    const float acc = by_racc;
    out[0] = (float)(acc);
  }
}
BY_DEVICE void colaunch_k0_body(const float* __restrict__ m0_in0, float* __restrict__ m0_out, const float* __restrict__ m1_in0, float* __restrict__ m1_out, const by_block_index by_block) {
  const unsigned int by_b = by_block.idx.x;
  if (by_b < 1u) dynamic_quantize_min_2a8cc6a5f7a3fda2_body(m0_in0, m0_out, by_block_at(by_b - 0u, dim3(1, 1, 1)));
  else if (by_b < 2u) dynamic_quantize_max_6cede2cc126407c8_body(m1_in0, m1_out, by_block_at(by_b - 1u, dim3(1, 1, 1)));
}
BY_KERNEL void __launch_bounds__(256) colaunch_k0(const float* __restrict__ m0_in0, float* __restrict__ m0_out, const float* __restrict__ m1_in0, float* __restrict__ m1_out) {
  colaunch_k0_body(m0_in0, m0_out, m1_in0, m1_out, by_this_block());
}

// ===== colaunch_k1 =====
BY_DEVICE void dynamic_quantize_y_f19699a9059c944e_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, unsigned char* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 6; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 6) break;
      const int i0 = lin;
      const float t0 = by_max(in1[0], 0.0f);
      const float t1 = by_min(in0[0], 0.0f);
      const float t2 = (((t0 == t1) ? 1.0f : (t0 - t1)) / 255.0f);
      out[(i0)] = (unsigned char)(((unsigned char)(by_min(by_max((by_round((in2[(i0)] / t2)) + by_round(by_min(by_max((0.0f - (t1 / t2)), 0.0f), 255.0f))), 0.0f), 255.0f))));
    }
  }
}
BY_DEVICE void dynamic_quantize_scale_c3ad1a8bad392a3d_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 1; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 1) break;
      const float t0 = by_max(in1[0], 0.0f);
      const float t1 = by_min(in0[0], 0.0f);
      out[0] = (float)((((t0 == t1) ? 1.0f : (t0 - t1)) / 255.0f));
    }
  }
}
BY_DEVICE void dynamic_quantize_zero_point_1d1e64bc8b8994d0_body(const float* __restrict__ in0, const float* __restrict__ in1, unsigned char* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 1; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 1) break;
      const float t0 = by_min(in0[0], 0.0f);
      const float t1 = by_max(in1[0], 0.0f);
      out[0] = (unsigned char)(((unsigned char)(by_round(by_min(by_max((0.0f - (t0 / (((t1 == t0) ? 1.0f : (t1 - t0)) / 255.0f))), 0.0f), 255.0f)))));
    }
  }
}
BY_DEVICE void colaunch_k1_body(const float* __restrict__ m0_in0, const float* __restrict__ m0_in1, const float* __restrict__ m0_in2, unsigned char* __restrict__ m0_out, const float* __restrict__ m1_in0, const float* __restrict__ m1_in1, float* __restrict__ m1_out, const float* __restrict__ m2_in0, const float* __restrict__ m2_in1, unsigned char* __restrict__ m2_out, const by_block_index by_block) {
  const unsigned int by_b = by_block.idx.x;
  if (by_b < 1u) dynamic_quantize_y_f19699a9059c944e_body(m0_in0, m0_in1, m0_in2, m0_out, by_block_at(by_b - 0u, dim3(1, 1, 1)));
  else if (by_b < 2u) dynamic_quantize_scale_c3ad1a8bad392a3d_body(m1_in0, m1_in1, m1_out, by_block_at(by_b - 1u, dim3(1, 1, 1)));
  else if (by_b < 3u) dynamic_quantize_zero_point_1d1e64bc8b8994d0_body(m2_in0, m2_in1, m2_out, by_block_at(by_b - 2u, dim3(1, 1, 1)));
}
BY_KERNEL void __launch_bounds__(512) colaunch_k1(const float* __restrict__ m0_in0, const float* __restrict__ m0_in1, const float* __restrict__ m0_in2, unsigned char* __restrict__ m0_out, const float* __restrict__ m1_in0, const float* __restrict__ m1_in1, float* __restrict__ m1_out, const float* __restrict__ m2_in0, const float* __restrict__ m2_in1, unsigned char* __restrict__ m2_out) {
  colaunch_k1_body(m0_in0, m0_in1, m0_in2, m0_out, m1_in0, m1_in1, m1_out, m2_in0, m2_in1, m2_out, by_this_block());
}

// golden: test_einsum_batch_diagonal h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: einsum_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[double out:double]

// ===== einsum_k0 =====
BY_DEVICE void einsum_k0_body(const double* __restrict__ in0, double* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 15; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 15) break;
      int by_rem = lin;
      const int i1 = by_rem % 5; by_rem /= 5;
      const int i0 = by_rem;
      out[(i0)*5 + (i1)] = (double)(in0[(i0)*25 + (i1)*5 + (i1)]);
    }
  }
}
BY_KERNEL void __launch_bounds__(512) einsum_k0(const double* __restrict__ in0, double* __restrict__ out) {
  einsum_k0_body(in0, out, by_this_block());
}

// golden: test_elu h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: elu_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== elu_k0 =====
BY_DEVICE void elu_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          const float t0 = by_e0[by_j];
          by_oe[by_j] = (float)(((t0 < 0.0f) ? (by_expm1(t0) * 2.0f) : t0));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)(((t0 < 0.0f) ? (by_expm1(t0) * 2.0f) : t0));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)(((t0 < 0.0f) ? (by_expm1(t0) * 2.0f) : t0));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)(((t0 < 0.0f) ? (by_expm1(t0) * 2.0f) : t0));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      const float t0 = in0[(i0)*20 + (i1)*5 + (i2)];
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(((t0 < 0.0f) ? (by_expm1(t0) * 2.0f) : t0));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) elu_k0(const float* __restrict__ in0, float* __restrict__ out) {
  elu_k0_body(in0, out, by_this_block());
}

// golden: test_elu_default_expanded_ver18 h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: where_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== where_k0 =====
BY_DEVICE void where_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          const float t0 = by_e0[by_j];
          by_oe[by_j] = (float)(((t0 < 0.0f) ? (by_exp(t0) - 1.0f) : t0));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)(((t0 < 0.0f) ? (by_exp(t0) - 1.0f) : t0));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)(((t0 < 0.0f) ? (by_exp(t0) - 1.0f) : t0));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)(((t0 < 0.0f) ? (by_exp(t0) - 1.0f) : t0));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      const float t0 = in0[(i0)*20 + (i1)*5 + (i2)];
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(((t0 < 0.0f) ? (by_exp(t0) - 1.0f) : t0));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) where_k0(const float* __restrict__ in0, float* __restrict__ out) {
  where_k0_body(in0, out, by_this_block());
}

// golden: test_equal h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: equal_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[int int out:bool]

// ===== equal_k0 =====
BY_DEVICE void equal_k0_body(const int* __restrict__ in0, const int* __restrict__ in1, bool* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 60; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 60) break;
      int by_rem = lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (bool)((in0[(i0)*20 + (i1)*5 + (i2)] == in1[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) equal_k0(const int* __restrict__ in0, const int* __restrict__ in1, bool* __restrict__ out) {
  equal_k0_body(in0, in1, out, by_this_block());
}

// golden: test_erf h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: erf_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== erf_k0 =====
BY_DEVICE void erf_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  const int i0 = 0;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 768; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i3 = by_rem % 32; by_rem /= 32;
        const int i2 = by_rem % 32; by_rem /= 32;
        const int i1 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*3072 + (i1)*1024 + (i2)*32 + (i3)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_erf(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 768) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i3 = by_rem % 32; by_rem /= 32;
          const int i2 = by_rem % 32; by_rem /= 32;
          const int i1 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*3072 + (i1)*1024 + (i2)*32 + (i3)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_erf(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 768) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i3 = by_rem % 32; by_rem /= 32;
          const int i2 = by_rem % 32; by_rem /= 32;
          const int i1 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*3072 + (i1)*1024 + (i2)*32 + (i3)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_erf(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 768) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i3 = by_rem % 32; by_rem /= 32;
          const int i2 = by_rem % 32; by_rem /= 32;
          const int i1 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*3072 + (i1)*1024 + (i2)*32 + (i3)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_erf(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 3072; by_lin += by_step) {
      int by_rem = by_lin;
      const int i3 = by_rem % 32; by_rem /= 32;
      const int i2 = by_rem % 32; by_rem /= 32;
      const int i1 = by_rem;
      out[(i1)*1024 + (i2)*32 + (i3)] = (float)(by_erf(in0[(i0)*3072 + (i1)*1024 + (i2)*32 + (i3)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) erf_k0(const float* __restrict__ in0, float* __restrict__ out) {
  erf_k0_body(in0, out, by_this_block());
}

// golden: test_exp h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: exp_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== exp_k0 =====
BY_DEVICE void exp_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_exp(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_exp(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_exp(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_exp(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_exp(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) exp_k0(const float* __restrict__ in0, float* __restrict__ out) {
  exp_k0_body(in0, out, by_this_block());
}

// golden: test_expand_dim_changed h100 fp32
// refused: shape

// golden: test_eyelike_populate_off_main_diagonal h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: eye_like_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[out:float]

// ===== eye_like_k0 =====
BY_DEVICE void eye_like_k0_body(float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 20; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 20) break;
      int by_rem = lin;
      const int i1 = by_rem % 5; by_rem /= 5;
      const int i0 = by_rem;
      out[(i0)*5 + (i1)] = (float)((((i1 - i0) == (1ll)) ? 1.0f : 0.0f));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) eye_like_k0(float* __restrict__ out) {
  eye_like_k0_body(out, by_this_block());
}

// golden: test_flatten_axis0 h100 fp32
// 0 launches, 0 distinct kernels

// golden: test_flexattention h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: matmul_rows_k0 grid=[64, 1, 1] block=[256, 1, 1] shared=96 params=[float float float out:float]

// ===== matmul_rows_k0 =====
BY_DEVICE void matmul_rows_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem_raw);
  float* const by_res0 = reinterpret_cast<float*>(by_smem_raw + 0);
  float* const by_st1 = reinterpret_cast<float*>(by_smem_raw + 32);
  float* const by_st2 = reinterpret_cast<float*>(by_smem_raw + 48);
  float* const by_res = reinterpret_cast<float*>(by_smem_raw + 64);
  const int by_row0 = (int)by_block.idx.x * 1;
  const int by_lane = threadIdx.x & 31, by_warp = threadIdx.x >> 5;
  (void)by_lane; (void)by_warp;
  for (int by_lin = threadIdx.x; by_lin < 6; by_lin += 256) {
    const int by_rl = by_lin / 6;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i2 = by_rrem % 8; by_rrem /= 8;
    const int i1 = by_rrem % 4; by_rrem /= 4;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i3 = by_lin % 6;
    float acc = 0.0f;
    for (int r0 = 0; r0 < 16; r0 += 1) {
      const float v = ((in1[(i0)*512 + (i1)*128 + (i2)*16 + (r0)] * 0.5f) * (in0[(i0)*384 + (i1)*96 + (i3)*16 + (r0)] * 0.5f));
      acc = acc + v;
    }
    by_res0[by_lin] = (float)(acc);
  }
  __syncthreads();
  for (int by_rl = by_warp / 1; by_rl < 1; by_rl += 8) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i2 = by_rrem % 8; by_rrem /= 8;
    const int i1 = by_rrem % 4; by_rrem /= 4;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = (-by_inf_f());
    for (int r0 = by_lane; r0 < 6; r0 += 32) {
      const float v = by_res0[(by_rl)*6 + (r0)];
      acc = by_max(acc, v);
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = by_max(acc, o);
    }
    if (by_lane == 0) by_st1[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (int by_rl = by_warp / 1; by_rl < 1; by_rl += 8) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i2 = by_rrem % 8; by_rrem /= 8;
    const int i1 = by_rrem % 4; by_rrem /= 4;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = 0.0f;
    for (int r0 = by_lane; r0 < 6; r0 += 32) {
      const float v = by_exp((by_res0[(by_rl)*6 + (r0)] - by_st1[(by_rl)]));
      acc = acc + v;
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    if (by_lane == 0) by_st2[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 6; by_lin += 256) {
    const int by_rl = by_lin / 6;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i2 = by_rrem % 8; by_rrem /= 8;
    const int i1 = by_rrem % 4; by_rrem /= 4;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i3 = by_lin % 6;
    by_res[by_lin] = (float)((by_exp((by_res0[(by_rl)*6 + (i3)] - by_st1[(by_rl)])) / by_st2[(by_rl)]));
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 16; by_lin += 256) {
    const int by_rl = by_lin / 16;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 64) break;
    int by_rrem = by_row;
    const int i2 = by_rrem % 8; by_rrem /= 8;
    const int i1 = by_rrem % 4; by_rrem /= 4;
    const int i0 = by_rrem;
    (void)by_rrem;
    int by_crem = (by_lin % 16);
    const int i3 = by_crem;
    (void)by_crem;
    float acc = 0.0f;
    for (int r0 = 0; r0 < 6; r0 += 1) {
      const float v = (by_res[(by_rl)*6 + (r0)] * in2[(i0)*384 + (i1)*96 + (r0)*16 + (i3)]);
      acc = acc + v;
    }
    out[i0 * 512 + i1 * 128 + i2 * 16 + i3 * 1] = (float)(acc);
  }
}
BY_KERNEL void __launch_bounds__(256) matmul_rows_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  matmul_rows_k0_body(in0, in1, in2, out, by_this_block());
}

// golden: test_flexattention_causal_mask_expanded_ver26 h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: matmul_rows_k0 grid=[8, 1, 1] block=[256, 1, 1] shared=64 params=[float float bool float out:float]

// ===== matmul_rows_k0 =====
BY_DEVICE void matmul_rows_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const bool* __restrict__ in2, const float* __restrict__ in3, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem_raw);
  float* const by_res0 = reinterpret_cast<float*>(by_smem_raw + 0);
  float* const by_st1 = reinterpret_cast<float*>(by_smem_raw + 16);
  float* const by_st2 = reinterpret_cast<float*>(by_smem_raw + 32);
  float* const by_res = reinterpret_cast<float*>(by_smem_raw + 48);
  const int by_row0 = (int)by_block.idx.x * 1;
  const int by_lane = threadIdx.x & 31, by_warp = threadIdx.x >> 5;
  (void)by_lane; (void)by_warp;
  for (int by_lin = threadIdx.x; by_lin < 4; by_lin += 256) {
    const int by_rl = by_lin / 4;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 8) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 4; by_rrem /= 4;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i2 = by_lin % 4;
    float acc = 0.0f;
    for (int r0 = 0; r0 < 8; r0 += 1) {
      const float v = ((in1[(i0)*32 + (i1)*8 + (r0)] * 0.5946035385131836f) * (in0[(i0)*32 + (i2)*8 + (r0)] * 0.5946035385131836f));
      acc = acc + v;
    }
    by_res0[by_lin] = (float)((in2[(i1)*4 + (i2)] ? acc : (-by_inf_f())));
  }
  __syncthreads();
  for (int by_rl = by_warp / 1; by_rl < 1; by_rl += 8) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 8) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 4; by_rrem /= 4;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = (-by_inf_f());
    for (int r0 = by_lane; r0 < 4; r0 += 32) {
      const float v = by_res0[(by_rl)*4 + (r0)];
      acc = by_max(acc, v);
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = by_max(acc, o);
    }
    if (by_lane == 0) by_st1[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (int by_rl = by_warp / 1; by_rl < 1; by_rl += 8) {
    const int by_row = by_row0 + by_rl;
    if (by_row >= 8) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 4; by_rrem /= 4;
    const int i0 = by_rrem;
    (void)by_rrem;
    float acc = 0.0f;
    for (int r0 = by_lane; r0 < 4; r0 += 32) {
      const float v = by_exp((by_res0[(by_rl)*4 + (r0)] - by_st1[(by_rl)]));
      acc = acc + v;
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    if (by_lane == 0) by_st2[by_rl] = (float)(acc);
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 4; by_lin += 256) {
    const int by_rl = by_lin / 4;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 8) break;
    int by_rrem = by_row;
    const int i1 = by_rrem % 4; by_rrem /= 4;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i2 = by_lin % 4;
    by_res[by_lin] = (float)((by_exp((by_res0[(by_rl)*4 + (i2)] - by_st1[(by_rl)])) / by_st2[(by_rl)]));
  }
  __syncthreads();
  for (int by_lin = threadIdx.x; by_lin < 8; by_lin += 256) {
    const int by_rl = by_lin / 8;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 8) break;
    int by_rrem = by_row;
    const int i2 = by_rrem % 4; by_rrem /= 4;
    const int i1 = by_rrem;
    (void)by_rrem;
    int by_crem = (by_lin % 8);
    const int i3 = by_crem % 8; by_crem /= 8;
    const int i0 = by_crem;
    (void)by_crem;
    float acc = 0.0f;
    for (int r0 = 0; r0 < 4; r0 += 1) {
      const float v = (by_res[(by_rl)*4 + (r0)] * in3[(i1)*32 + (r0)*8 + (i3)]);
      acc = acc + v;
    }
    out[i0 * 64 + i1 * 32 + i2 * 8 + i3 * 1] = (float)(acc);
  }
}
BY_KERNEL void __launch_bounds__(256) matmul_rows_k0(const float* __restrict__ in0, const float* __restrict__ in1, const bool* __restrict__ in2, const float* __restrict__ in3, float* __restrict__ out) {
  matmul_rows_k0_body(in0, in1, in2, in3, out, by_this_block());
}

// golden: test_floor h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: floor_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== floor_k0 =====
BY_DEVICE void floor_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_floor(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_floor(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_floor(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_floor(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_floor(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) floor_k0(const float* __restrict__ in0, float* __restrict__ out) {
  floor_k0_body(in0, out, by_this_block());
}

// golden: test_gather_0 h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: gather_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float long long out:float]

// ===== gather_k0 =====
BY_DEVICE void gather_k0_body(const float* __restrict__ in0, const long long* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 72; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 72) break;
      int by_rem = lin;
      const int i3 = by_rem % 2; by_rem /= 2;
      const int i2 = by_rem % 3; by_rem /= 3;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      const long long t0 = in1[(i0)];
      out[(i0)*24 + (i1)*6 + (i2)*2 + (i3)] = (float)(in0[(((t0 < (0ll)) ? (t0 + (5ll)) : t0))*24 + (i1)*6 + (i2)*2 + (i3)]);
    }
  }
}
BY_KERNEL void __launch_bounds__(512) gather_k0(const float* __restrict__ in0, const long long* __restrict__ in1, float* __restrict__ out) {
  gather_k0_body(in0, in1, out, by_this_block());
}

// golden: test_gather_elements_0 h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: gather_elements_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float long long out:float]

// ===== gather_elements_k0 =====
BY_DEVICE void gather_elements_k0_body(const float* __restrict__ in0, const long long* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 4; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 4) break;
      int by_rem = lin;
      const int i1 = by_rem % 2; by_rem /= 2;
      const int i0 = by_rem;
      const long long t0 = in1[(i0)*2 + (i1)];
      out[(i0)*2 + (i1)] = (float)(in0[(i0)*2 + (((t0 < (0ll)) ? (t0 + (2ll)) : t0))]);
    }
  }
}
BY_KERNEL void __launch_bounds__(512) gather_elements_k0(const float* __restrict__ in0, const long long* __restrict__ in1, float* __restrict__ out) {
  gather_elements_k0_body(in0, in1, out, by_this_block());
}

// golden: test_gathernd_example_float32 h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: gather_nd_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float long long out:float]

// ===== gather_nd_k0 =====
BY_DEVICE void gather_nd_k0_body(const float* __restrict__ in0, const long long* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 4; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 4) break;
      const int i1 = 0;
      int by_rem = lin;
      const int i2 = by_rem % 2; by_rem /= 2;
      const int i0 = by_rem;
      const long long t0 = in1[(i0)*2 + (i1)*2];
      const long long t1 = in1[(i0)*2 + (i1)*2 + ((1ll))];
      out[(i0)*2 + (i2)] = (float)(in0[(((t0 < (0ll)) ? (t0 + (2ll)) : t0))*4 + (((t1 < (0ll)) ? (t1 + (2ll)) : t1))*2 + (i2)]);
    }
  }
}
BY_KERNEL void __launch_bounds__(512) gather_nd_k0(const float* __restrict__ in0, const long long* __restrict__ in1, float* __restrict__ out) {
  gather_nd_k0_body(in0, in1, out, by_this_block());
}

// golden: test_gelu_default_1 h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: gelu_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== gelu_k0 =====
BY_DEVICE void gelu_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 3; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 3) break;
      const int i0 = lin;
      const float t0 = in0[(i0)];
      out[(i0)] = (float)(((t0 * 0.5f) * (by_erf((t0 * 0.7071067811865476f)) + 1.0f)));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) gelu_k0(const float* __restrict__ in0, float* __restrict__ out) {
  gelu_k0_body(in0, out, by_this_block());
}

// golden: test_gemm_all_attributes h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: gemm_k0 grid=[1, 1, 1] block=[32, 1, 1] shared=192 params=[float float float out:float]

// ===== gemm_k0 =====
BY_DEVICE void gemm_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 16;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 1) * 8; by_blk /= 1;
  const int by_m0 = (by_blk % 1) * 4; by_blk /= 1;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  for (int kt = 0; kt < 1; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 16; e += 32) {
      const int rr = e % 4; const int kk = e / 4;
      const int gr = by_ar0 + rr; const int gk = kt * 4 + kk;
      float v = 0;
      if (gr < 3) {
        const int i0 = gr;
        const int r0 = gk;
        v = in0[(r0)*3 + (i0)];
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 32; e += 32) {
      const int kk = e % 4; const int rr = e / 4;
      const int gr = by_br0 + rr; const int gk = kt * 4 + kk;
      float v = 0;
      if (gr < 5) {
        const int i1 = gr;
        const int r0 = gk;
        v = in1[(i1)*4 + (r0)];
      }
      by_bs[kk * 8 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 16;
    const float* const bs = by_bs + cur * 32;
    #pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
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
    if (gm >= 3) continue;
    const int i0 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 8;
      if (gn >= 5) continue;
      const int i1 = gn;
      const float acc = by_acc[i][j];
      out[(i0)*5 + (i1)] = (float)(((acc * 0.25f) + (in2[(i1)] * 0.3499999940395355f)));
    }
  }
}
BY_KERNEL void gemm_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  gemm_k0_body(in0, in1, in2, out, by_this_block());
}

// golden: test_globalaveragepool h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: global_avgpool_k0 grid=[1, 1, 1] block=[256, 1, 1] shared=0 params=[float out:float]

// ===== global_avgpool_k0 =====
BY_DEVICE void global_avgpool_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const int tid = threadIdx.x;
  const int lane = tid % 1;
  const int row = (int)by_block.idx.x * 256 + tid / 1;
  const bool active = row < 3;
  float by_racc = 0;
  const int i0 = 0;
  const int i2 = 0;
  const int i3 = 0;
  const int rowc = active ? row : 0;
  const int i1 = rowc;
  if (active) for (int k = lane; k < 25; k += 1) {
    int by_rk = k;
    const int r1 = by_rk % 5; by_rk /= 5;
    const int r0 = by_rk;
    const float v = in0[(i0)*75 + (i1)*25 + (r0)*5 + (r1)];
    by_racc = by_racc + v;
  }
  if (active && lane == 0) {
    const float acc = by_racc;
    out[(i1)] = (float)((acc / 25.0f));
  }
}
BY_KERNEL void __launch_bounds__(256) global_avgpool_k0(const float* __restrict__ in0, float* __restrict__ out) {
  global_avgpool_k0_body(in0, out, by_this_block());
}

// golden: test_globalmaxpool h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: global_maxpool_k0 grid=[1, 1, 1] block=[256, 1, 1] shared=0 params=[float out:float]

// ===== global_maxpool_k0 =====
BY_DEVICE void global_maxpool_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const int tid = threadIdx.x;
  const int lane = tid % 1;
  const int row = (int)by_block.idx.x * 256 + tid / 1;
  const bool active = row < 3;
  float by_racc = 0;
  int have = 0;
  const int i0 = 0;
  const int i2 = 0;
  const int i3 = 0;
  const int rowc = active ? row : 0;
  const int i1 = rowc;
  if (active) for (int k = lane; k < 25; k += 1) {
    int by_rk = k;
    const int r1 = by_rk % 5; by_rk /= 5;
    const int r0 = by_rk;
    const float v = in0[(i0)*75 + (i1)*25 + (r0)*5 + (r1)];
    by_racc = have ? by_max(by_racc, v) : v; have = 1;
  }
  if (active && lane == 0) {
    (void)have;
    const float acc = by_racc;
    out[(i1)] = (float)(acc);
  }
}
BY_KERNEL void __launch_bounds__(256) global_maxpool_k0(const float* __restrict__ in0, float* __restrict__ out) {
  global_maxpool_k0_body(in0, out, by_this_block());
}

// golden: test_greater h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: greater_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float out:bool]

// ===== greater_k0 =====
BY_DEVICE void greater_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, bool* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 60; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 60) break;
      int by_rem = lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (bool)((in0[(i0)*20 + (i1)*5 + (i2)] > in1[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) greater_k0(const float* __restrict__ in0, const float* __restrict__ in1, bool* __restrict__ out) {
  greater_k0_body(in0, in1, out, by_this_block());
}

// golden: test_greater_equal h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: greaterorequal_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float out:bool]

// ===== greaterorequal_k0 =====
BY_DEVICE void greaterorequal_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, bool* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 60; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 60) break;
      int by_rem = lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (bool)((in0[(i0)*20 + (i1)*5 + (i2)] >= in1[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) greaterorequal_k0(const float* __restrict__ in0, const float* __restrict__ in1, bool* __restrict__ out) {
  greaterorequal_k0_body(in0, in1, out, by_this_block());
}

// golden: test_gridsample h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: grid_sample_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float out:float]

// ===== grid_sample_k0 =====
BY_DEVICE void grid_sample_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 36; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 36) break;
      const int i0 = 0;
      const int i1 = 0;
      int by_rem = lin;
      const int i3 = by_rem % 6; by_rem /= 6;
      const int i2 = by_rem;
      const float t0 = ((((in1[(i0)*72 + (i2)*12 + (i3)*2 + ((1ll))] + 1.0f) * 4.0f) - 1.0f) * 0.5f);
      const float t1 = by_floor(t0);
      const float t2 = (t0 - t1);
      const float t3 = (1.0f - t2);
      const float t4 = ((((in1[(i0)*72 + (i2)*12 + (i3)*2] + 1.0f) * 4.0f) - 1.0f) * 0.5f);
      const float t5 = by_floor(t4);
      const float t6 = (t4 - t5);
      const float t7 = (1.0f - t6);
      const long long t8 = ((long long)(t1));
      const bool t9 = ((t8 >= (0ll)) && (t8 < (4ll)));
      const long long t10 = ((long long)(t5));
      const bool t11 = ((t10 >= (0ll)) && (t10 < (4ll)));
      const long long t12 = (t10 + (1ll));
      const bool t13 = ((t12 >= (0ll)) && (t12 < (4ll)));
      const long long t14 = (t8 + (1ll));
      const bool t15 = ((t14 >= (0ll)) && (t14 < (4ll)));
      out[(i2)*6 + (i3)] = (float)((((((t3 * t7) * ((t9 && t11) ? in0[(i0)*16 + (i1)*16 + (t8)*4 + (t10)] : 0.0f)) + ((t3 * t6) * ((t9 && t13) ? in0[(i0)*16 + (i1)*16 + (t8)*4 + (t12)] : 0.0f))) + ((t2 * t7) * ((t15 && t11) ? in0[(i0)*16 + (i1)*16 + (t14)*4 + (t10)] : 0.0f))) + ((t2 * t6) * ((t15 && t13) ? in0[(i0)*16 + (i1)*16 + (t14)*4 + (t12)] : 0.0f))));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) grid_sample_k0(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out) {
  grid_sample_k0_body(in0, in1, out, by_this_block());
}

// golden: test_group_normalization_epsilon h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: layernorm_regrows_k0 grid=[6, 1, 1] block=[32, 1, 1] shared=0 params=[float float float out:float]

// ===== layernorm_regrows_k0 =====
BY_DEVICE void layernorm_regrows_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  const int by_row = (int)by_block.idx.x * 1 + (threadIdx.x >> 5);
  if (by_row >= 6) return;  // the whole warp leaves together
  const int by_lane = threadIdx.x & 31;
  int by_rrem = by_row;
  const int by_r1 = by_rrem % 2; by_rrem /= 2;
  const int by_r0 = by_rrem;
  (void)by_rrem;
  float by_c0[1];
  #pragma unroll
  for (int by_k = 0; by_k < 1; ++by_k) {
    const int by_j0 = by_k * 32 + by_lane * 1;
    if (by_j0 < 8) {
      #pragma unroll
      for (int by_u = 0; by_u < 1; ++by_u) {
        const int by_j = by_j0 + by_u;
        by_c0[by_k * 1 + by_u] = in0[(by_r0)*16 + (((by_r1 * (2ll)) + (by_j / (4ll))))*4 + (((by_j / (2ll)) % (2ll)))*2 + ((by_j % (2ll)))];
      }
    }
  }
  float by_st0;
  {
    float acc = 0.0f;
    #pragma unroll
    for (int by_s = 0; by_s < 1; ++by_s) {
      const int by_j = (by_s) * 32 + by_lane;
      (void)by_j;
      if (by_j < 8) {
        acc = acc + (by_c0[(by_s)]);
      }
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    by_st0 = (float)(acc);
  }
  float by_st1;
  {
    float acc = 0.0f;
    #pragma unroll
    for (int by_s = 0; by_s < 1; ++by_s) {
      const int by_j = (by_s) * 32 + by_lane;
      (void)by_j;
      if (by_j < 8) {
        const float t0 = (by_c0[(by_s)] - (by_st0 / 8.0f));
        acc = acc + ((t0 * t0));
      }
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    by_st1 = (float)(acc);
  }
  float by_o[1];
  #pragma unroll
  for (int by_s = 0; by_s < 1; ++by_s) {
    const int by_j = (by_s) * 32 + by_lane;
    (void)by_j;
    if (by_j < 8) {
      const int t0 = ((by_r1 * (2ll)) + ((by_j / (4ll)) % (2ll)));
      by_o[by_s] = (float)(((((in0[(by_r0)*16 + (t0)*4 + (((by_j / (2ll)) % (2ll)))*2 + ((by_j % (2ll)))] - (by_st0 / 8.0f)) * (1.0f / by_sqrt(((by_st1 / 8.0f) + 0.009999999776482582f)))) * in1[(t0)]) + in2[(t0)]));
    }
  }
  #pragma unroll
  for (int by_k = 0; by_k < 1; ++by_k) {
    const int by_j0 = by_k * 32 + by_lane * 1;
    if (by_j0 < 8) {
      #pragma unroll
      for (int by_u = 0; by_u < 1; ++by_u) {
        const int by_j = by_j0 + by_u;
        int by_crem = by_j;
        const int by_i4 = by_crem % 2; by_crem /= 2;
        const int by_i3 = by_crem % 2; by_crem /= 2;
        const int by_i2 = by_crem;
        (void)by_crem;
        out[by_r0 * 16 + by_r1 * 8 + by_i2 * 4 + by_i3 * 2 + by_i4 * 1] = by_o[by_k * 1 + by_u];
      }
    }
  }
}
BY_KERNEL void __launch_bounds__(32) layernorm_regrows_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  layernorm_regrows_k0_body(in0, in1, in2, out, by_this_block());
}

// golden: test_gru_batchwise h100 fp32
// 2 launches, 2 distinct kernels
// launch 0: gru_xw_k0 grid=[2, 1, 1] block=[64, 1, 1] shared=160 params=[float float out:float]
// launch 1: gru_recurrence_k0 grid=[3, 1, 1] block=[64, 1, 1] shared=120 params=[float float out:float out:float]

// ===== gru_xw_k0 =====
BY_DEVICE void gru_xw_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 8;
  const int tid = threadIdx.x;
  const int tx = tid % 16;
  const int ty = tid / 16;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 2) * 16; by_blk /= 2;
  const int by_m0 = (by_blk % 1) * 4; by_blk /= 1;
  const int i0 = 0;
  const int i1 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  for (int kt = 0; kt < 1; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 8; e += 64) {
      const int kk = e % 2; const int rr = e / 2;
      const int gr = by_ar0 + rr; const int gk = kt * 2 + kk;
      float v = 0;
      if (gr < 3) {
        const int i2 = gr;
        const int r0 = gk;
        v = in0[(i2)*2 + (i1)*2 + (r0)];
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 32; e += 64) {
      const int kk = e % 2; const int rr = e / 2;
      const int gr = by_br0 + rr; const int gk = kt * 2 + kk;
      float v = 0;
      if (gr < 18) {
        const int i3 = gr;
        const int r0 = gk;
        v = in1[(i0)*36 + (i3)*2 + (r0)];
      }
      by_bs[kk * 16 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 8;
    const float* const bs = by_bs + cur * 32;
    #pragma unroll
    for (int kk = 0; kk < 2; ++kk) {
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
    if (gm >= 3) continue;
    const int i2 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 16;
      if (gn >= 18) continue;
      const int i3 = gn;
      const float acc = by_acc[i][j];
      out[(i2)*18 + (i3)] = (float)(acc);
    }
  }
}
BY_KERNEL void gru_xw_k0(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out) {
  gru_xw_k0_body(in0, in1, out, by_this_block());
}

// ===== gru_recurrence_k0 =====
BY_DEVICE void gru_recurrence_k0_body(const float* __restrict__ xw, const float* __restrict__ R, float* __restrict__ y, float* __restrict__ y_h, const by_block_index by_block) {
  constexpr int SEQ = 1, BATCH = 3, DIRS = 1, HID = 6, GH = 18;
  BY_SHARED_BUFFER(smem);
  float* h = (float*)smem;
  float* gates = h + HID;
  float* rh = gates + GH;
  const int b = by_block.idx.x;
  const int d = by_block.idx.y;
  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const float* Rd = R + (long long)d * GH * HID;
  const int len = SEQ;
  const bool rev = false;
  for (int j = tid; j < HID; j += 64) {
    h[j] = 0.0f;
  }
  __syncthreads();
  for (int s = 0; s < len; ++s) {
    const int t = rev ? len - 1 - s : s;
    const float* x = xw + (((long long)d * SEQ + t) * BATCH + b) * GH;
    for (int row = 0 + warp; row < 12; row += 2) {
      const float* rr = Rd + (long long)row * HID;
      float acc = 0.0f;
      for (int k = lane; k < HID; k += 32) acc += (float)rr[k] * h[k];
      for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
      if (lane == 0) gates[row] = acc;
    }
    __syncthreads();
    for (int j = tid; j < HID; j += 64) {
      rh[j] = by_sigmoid((x[HID + j] + gates[1 * HID + j])) * h[j];
    }
    __syncthreads();
    for (int row = 12 + warp; row < 18; row += 2) {
      const float* rr = Rd + (long long)row * HID;
      float acc = 0.0f;
      for (int k = lane; k < HID; k += 32) acc += (float)rr[k] * rh[k];
      for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
      if (lane == 0) gates[row] = acc;
    }
    __syncthreads();
    for (int j = tid; j < HID; j += 64) {
      const float zp = (x[j] + gates[0 * HID + j]);
      const float zg = by_sigmoid(zp);
      const float hp = (x[2 * HID + j] + gates[2 * HID + j]);
      const float hn = (1.0f - zg) * by_tanh(hp) + zg * h[j];
      h[j] = hn;
      y[(((long long)b * SEQ + t) * DIRS + d) * HID + j] = (float)(hn);
    }
    __syncthreads();
  }
  for (int j = tid; j < HID; j += 64) {
    y_h[((long long)b * DIRS + d) * HID + j] = (float)(h[j]);
  }
}
BY_KERNEL void __launch_bounds__(64) gru_recurrence_k0(const float* __restrict__ xw, const float* __restrict__ R, float* __restrict__ y, float* __restrict__ y_h) {
  gru_recurrence_k0_body(xw, R, y, y_h, by_this_block());
}

// golden: test_hammingwindow h100 fp32
// refused: shape

// golden: test_hannwindow h100 fp32
// refused: shape

// golden: test_hardmax_axis_0 h100 fp32
// 2 launches, 2 distinct kernels
// launch 0: hardmax_argmax_k0 grid=[1, 1, 1] block=[256, 1, 1] shared=0 params=[float out:long long]
// launch 1: hardmax_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float long long out:float]

// ===== hardmax_argmax_k0 =====
BY_DEVICE void hardmax_argmax_k0_body(const float* __restrict__ in0, long long* __restrict__ out, const by_block_index by_block) {
  for (int lin = (int)by_block.idx.x * blockDim.x + threadIdx.x; lin < 20; lin += (int)by_block.grid.x * blockDim.x) {
    int rem = lin;
    const int i2 = rem % 5; rem /= 5;
    const int i1 = rem % 4; rem /= 4;
    const int i0 = rem;
    float best = 0; long long acc = 0; bool have = false; long long pos = 0;
    for (int r0 = 0; r0 < 3; ++r0) {
      const float v = in0[(r0)*20 + (i1)*5 + (i2)];
      if (!have || v > best) { best = v; acc = pos; have = true; } ++pos;
    }
    out[lin] = (long long)(acc);
  }
}
BY_KERNEL void __launch_bounds__(256) hardmax_argmax_k0(const float* __restrict__ in0, long long* __restrict__ out) {
  hardmax_argmax_k0_body(in0, out, by_this_block());
}

// ===== hardmax_k0 =====
BY_DEVICE void hardmax_k0_body(const float* __restrict__ in0, const long long* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 60; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 60) break;
      int by_rem = lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(((i0 == in1[(i1)*5 + (i2)]) ? 1.0f : 0.0f));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) hardmax_k0(const float* __restrict__ in0, const long long* __restrict__ in1, float* __restrict__ out) {
  hardmax_k0_body(in0, in1, out, by_this_block());
}

// golden: test_hardsigmoid h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: hardsigmoid_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== hardsigmoid_k0 =====
BY_DEVICE void hardsigmoid_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_max(by_min(((by_e0[by_j] * 0.5f) + 0.6000000238418579f), 1.0f), 0.0f));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_max(by_min(((by_e0[by_j] * 0.5f) + 0.6000000238418579f), 1.0f), 0.0f));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_max(by_min(((by_e0[by_j] * 0.5f) + 0.6000000238418579f), 1.0f), 0.0f));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_max(by_min(((by_e0[by_j] * 0.5f) + 0.6000000238418579f), 1.0f), 0.0f));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_max(by_min(((in0[(i0)*20 + (i1)*5 + (i2)] * 0.5f) + 0.6000000238418579f), 1.0f), 0.0f));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) hardsigmoid_k0(const float* __restrict__ in0, float* __restrict__ out) {
  hardsigmoid_k0_body(in0, out, by_this_block());
}

// golden: test_hardsigmoid_default_expanded_ver18 h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: max_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== max_k0 =====
BY_DEVICE void max_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_max(by_min(((by_e0[by_j] * 0.20000000298023224f) + 0.5f), 1.0f), 0.0f));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_max(by_min(((by_e0[by_j] * 0.20000000298023224f) + 0.5f), 1.0f), 0.0f));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_max(by_min(((by_e0[by_j] * 0.20000000298023224f) + 0.5f), 1.0f), 0.0f));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_max(by_min(((by_e0[by_j] * 0.20000000298023224f) + 0.5f), 1.0f), 0.0f));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_max(by_min(((in0[(i0)*20 + (i1)*5 + (i2)] * 0.20000000298023224f) + 0.5f), 1.0f), 0.0f));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) max_k0(const float* __restrict__ in0, float* __restrict__ out) {
  max_k0_body(in0, out, by_this_block());
}

// golden: test_hardswish h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: hardswish_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== hardswish_k0 =====
BY_DEVICE void hardswish_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          const float t0 = by_e0[by_j];
          by_oe[by_j] = (float)((t0 * by_max(by_min(((t0 * 0.1666666716337204f) + 0.5f), 1.0f), 0.0f)));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)((t0 * by_max(by_min(((t0 * 0.1666666716337204f) + 0.5f), 1.0f), 0.0f)));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)((t0 * by_max(by_min(((t0 * 0.1666666716337204f) + 0.5f), 1.0f), 0.0f)));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)((t0 * by_max(by_min(((t0 * 0.1666666716337204f) + 0.5f), 1.0f), 0.0f)));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      const float t0 = in0[(i0)*20 + (i1)*5 + (i2)];
      out[(i0)*20 + (i1)*5 + (i2)] = (float)((t0 * by_max(by_min(((t0 * 0.1666666716337204f) + 0.5f), 1.0f), 0.0f)));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) hardswish_k0(const float* __restrict__ in0, float* __restrict__ out) {
  hardswish_k0_body(in0, out, by_this_block());
}

// golden: test_if h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: device_if_k0 grid=[1, 1, 1] block=[32, 1, 1] shared=0 cooperative params=[bool out:float float float]

// ===== device_if_k0 =====
BY_DEVICE void device_if_k0_body(const bool* p0, float* p1, const float* p2, const float* p3, const by_block_index by_block) {
  const unsigned int by_b = by_block.idx.x;
  const unsigned int by_g = by_block.grid.x;
  const unsigned int by_t = threadIdx.x;
  const unsigned long long by_tid = (unsigned long long)by_b * blockDim.x + threadIdx.x;
  const unsigned long long by_nthreads = (unsigned long long)by_g * blockDim.x;
  (void)by_t; (void)by_tid; (void)by_nthreads;
  if (p0[0]) {  // If If_0: then
    for (unsigned long long by_i = by_tid; by_i < 5ull; by_i += by_nthreads) p1[by_i] = p2[by_i];
    by_grid_sync();
  } else {
    for (unsigned long long by_i = by_tid; by_i < 5ull; by_i += by_nthreads) p1[by_i] = p3[by_i];
    by_grid_sync();
  }
}
BY_KERNEL void __launch_bounds__(32, 1) device_if_k0(const bool* p0, float* p1, const float* p2, const float* p3) {
  device_if_k0_body(p0, p1, p2, p3, by_this_block());
}

// golden: test_image_decoder_decode_bmp_rgb h100 fp32
// refused: unsupported_op

// golden: test_instancenorm_epsilon h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: layernorm_regrows_k0 grid=[6, 1, 1] block=[32, 1, 1] shared=0 params=[float float float out:float]

// ===== layernorm_regrows_k0 =====
BY_DEVICE void layernorm_regrows_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  const int by_row = (int)by_block.idx.x * 1 + (threadIdx.x >> 5);
  if (by_row >= 6) return;  // the whole warp leaves together
  const int by_lane = threadIdx.x & 31;
  int by_rrem = by_row;
  const int by_r1 = by_rrem % 3; by_rrem /= 3;
  const int by_r0 = by_rrem;
  (void)by_rrem;
  float by_c0[1];
  #pragma unroll
  for (int by_k = 0; by_k < 1; ++by_k) {
    const int by_j0 = by_k * 32 + by_lane * 1;
    if (by_j0 < 20) {
      #pragma unroll
      for (int by_u = 0; by_u < 1; ++by_u) {
        const int by_j = by_j0 + by_u;
        by_c0[by_k * 1 + by_u] = in0[(by_r0)*60 + (by_r1)*20 + ((by_j / (5ll)))*5 + ((by_j % (5ll)))];
      }
    }
  }
  float by_st0;
  {
    float acc = 0.0f;
    #pragma unroll
    for (int by_s = 0; by_s < 1; ++by_s) {
      const int by_j = (by_s) * 32 + by_lane;
      (void)by_j;
      if (by_j < 20) {
        acc = acc + (by_c0[(by_s)]);
      }
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    by_st0 = (float)(acc);
  }
  float by_st1;
  {
    float acc = 0.0f;
    #pragma unroll
    for (int by_s = 0; by_s < 1; ++by_s) {
      const int by_j = (by_s) * 32 + by_lane;
      (void)by_j;
      if (by_j < 20) {
        const float t0 = (by_c0[(by_s)] - (by_st0 / 20.0f));
        acc = acc + ((t0 * t0));
      }
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    by_st1 = (float)(acc);
  }
  float by_o[1];
  #pragma unroll
  for (int by_s = 0; by_s < 1; ++by_s) {
    const int by_j = (by_s) * 32 + by_lane;
    (void)by_j;
    if (by_j < 20) {
      by_o[by_s] = (float)(((((in0[(by_r0)*60 + (by_r1)*20 + (((by_j / (5ll)) % (4ll)))*5 + ((by_j % (5ll)))] - (by_st0 / 20.0f)) * (1.0f / by_sqrt(((by_st1 / 20.0f) + 0.009999999776482582f)))) * in1[(by_r1)]) + in2[(by_r1)]));
    }
  }
  #pragma unroll
  for (int by_k = 0; by_k < 1; ++by_k) {
    const int by_j0 = by_k * 32 + by_lane * 1;
    if (by_j0 < 20) {
      #pragma unroll
      for (int by_u = 0; by_u < 1; ++by_u) {
        const int by_j = by_j0 + by_u;
        int by_crem = by_j;
        const int by_i3 = by_crem % 5; by_crem /= 5;
        const int by_i2 = by_crem;
        (void)by_crem;
        out[by_r0 * 60 + by_r1 * 20 + by_i2 * 5 + by_i3 * 1] = by_o[by_k * 1 + by_u];
      }
    }
  }
}
BY_KERNEL void __launch_bounds__(32) layernorm_regrows_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  layernorm_regrows_k0_body(in0, in1, in2, out, by_this_block());
}

// golden: test_isinf h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: isinf_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:bool]

// ===== isinf_k0 =====
BY_DEVICE void isinf_k0_body(const float* __restrict__ in0, bool* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 6; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 6) break;
      const int i0 = lin;
      out[(i0)] = (bool)(by_isinf(in0[(i0)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) isinf_k0(const float* __restrict__ in0, bool* __restrict__ out) {
  isinf_k0_body(in0, out, by_this_block());
}

// golden: test_isnan h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: isnan_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:bool]

// ===== isnan_k0 =====
BY_DEVICE void isnan_k0_body(const float* __restrict__ in0, bool* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 6; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 6) break;
      const int i0 = lin;
      out[(i0)] = (bool)(by_isnan(in0[(i0)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) isnan_k0(const float* __restrict__ in0, bool* __restrict__ out) {
  isnan_k0_body(in0, out, by_this_block());
}

// golden: test_l1normalization_axis_0 h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: lpnorm_regrows_k0 grid=[1, 1, 1] block=[32, 1, 1] shared=0 params=[float out:float]

// ===== lpnorm_regrows_k0 =====
BY_DEVICE void lpnorm_regrows_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const int by_row = (int)by_block.idx.x * 1 + (threadIdx.x >> 5);
  if (by_row >= 1) return;  // the whole warp leaves together
  const int by_lane = threadIdx.x & 31;
  float by_c0[1];
  #pragma unroll
  for (int by_k = 0; by_k < 1; ++by_k) {
    const int by_j0 = by_k * 32 + by_lane * 1;
    if (by_j0 < 2) {
      #pragma unroll
      for (int by_u = 0; by_u < 1; ++by_u) {
        const int by_j = by_j0 + by_u;
        by_c0[by_k * 1 + by_u] = in0[(by_j)];
      }
    }
  }
  float by_st0;
  {
    float acc = 0.0f;
    #pragma unroll
    for (int by_s = 0; by_s < 1; ++by_s) {
      const int by_j = (by_s) * 32 + by_lane;
      (void)by_j;
      if (by_j < 2) {
        acc = acc + (by_abs(by_c0[(by_s)]));
      }
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    by_st0 = (float)(acc);
  }
  float by_o[1];
  #pragma unroll
  for (int by_s = 0; by_s < 1; ++by_s) {
    const int by_j = (by_s) * 32 + by_lane;
    (void)by_j;
    if (by_j < 2) {
      by_o[by_s] = (float)(((by_st0 == 0.0f) ? 0.0f : (by_c0[(by_s)] / by_st0)));
    }
  }
  #pragma unroll
  for (int by_k = 0; by_k < 1; ++by_k) {
    const int by_j0 = by_k * 32 + by_lane * 1;
    if (by_j0 < 2) {
      #pragma unroll
      for (int by_u = 0; by_u < 1; ++by_u) {
        const int by_j = by_j0 + by_u;
        int by_crem = by_j;
        const int by_i0 = by_crem;
        (void)by_crem;
        out[by_i0 * 1] = by_o[by_k * 1 + by_u];
      }
    }
  }
}
BY_KERNEL void __launch_bounds__(32) lpnorm_regrows_k0(const float* __restrict__ in0, float* __restrict__ out) {
  lpnorm_regrows_k0_body(in0, out, by_this_block());
}

// golden: test_layer_normalization_2d_axis0 h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: row_layernorm_k0 grid=[1, 1, 1] block=[128, 1, 1] shared=0 params=[float float float out:float out:float out:float]

// ===== row_layernorm_k0 =====
BY_DEVICE float row_layernorm_k0_sum(float v, float* part) {
  for (int d = 16; d > 0; d >>= 1) {
    const float o = __shfl_xor_sync(0xffffffffu, v, d);
    v = v + o;
  }
  (void)part;
  return v;
}
BY_DEVICE void row_layernorm_k0_body(const float* __restrict__ x, const float* __restrict__ scale, const float* __restrict__ bias, float* __restrict__ y, float* __restrict__ mean_out, float* __restrict__ invstd_out, const by_block_index by_block) {
  const long long row = (long long)by_block.idx.x * 4 + (threadIdx.x >> 5);
  if (row >= 1ll) return;  // the whole warp leaves together
  const int tid = threadIdx.x & 31;
  const int nthreads = 32;
  float* part = 0;
  const float* xr = x + row * 12ll;
  float* yr = y + row * 12ll;
  float s = 0.0f;
  for (long long j = tid; j < 12ll; j += nthreads) s += ((float)xr[j]);
  const float mu = row_layernorm_k0_sum(s, part) / 12.0f;
  float q = 0.0f;
  for (long long j = tid; j < 12ll; j += nthreads) { const float d = ((float)xr[j]) - mu; q += d * d; }
  const float var = row_layernorm_k0_sum(q, part) / 12.0f;
  const float inv = 1.0f / by_sqrt(var + 1e-05f);
  for (long long j = tid; j < 12ll; j += nthreads) {
    float v = (((float)xr[j]) - mu) * inv;
    v = v * ((float)scale[j]);
    v = v + ((float)bias[j]);
    yr[j] = (float)v;
  }
  if (tid == 0) {
    mean_out[row] = (float)mu;
    invstd_out[row] = (float)inv;
  }
}
BY_KERNEL void __launch_bounds__(128) row_layernorm_k0(const float* __restrict__ x, const float* __restrict__ scale, const float* __restrict__ bias, float* __restrict__ y, float* __restrict__ mean_out, float* __restrict__ invstd_out) {
  row_layernorm_k0_body(x, scale, bias, y, mean_out, invstd_out, by_this_block());
}

// golden: test_layer_normalization_2d_axis0_expanded_ver18 h100 fp32
// 2 launches, 2 distinct kernels
// launch 0: reducemean_regrows_k0 grid=[1, 1, 1] block=[32, 1, 1] shared=0 params=[float out:float out:float]
// launch 1: colaunch_k0 grid=[2, 1, 1] block=[512, 1, 1] shared=0 params=[float float float float float out:float float out:float]

// ===== reducemean_regrows_k0 =====
BY_DEVICE void reducemean_regrows_k0_body(const float* __restrict__ in0, float* __restrict__ out0, float* __restrict__ out, const by_block_index by_block) {
  const int by_row = (int)by_block.idx.x * 1 + (threadIdx.x >> 5);
  if (by_row >= 1) return;  // the whole warp leaves together
  const int by_lane = threadIdx.x & 31;
  float by_c0[1];
  #pragma unroll
  for (int by_k = 0; by_k < 1; ++by_k) {
    const int by_j0 = by_k * 32 + by_lane * 1;
    if (by_j0 < 12) {
      #pragma unroll
      for (int by_u = 0; by_u < 1; ++by_u) {
        const int by_j = by_j0 + by_u;
        by_c0[by_k * 1 + by_u] = in0[(by_j)];
      }
    }
  }
  float by_st0;
  {
    float acc = 0.0f;
    #pragma unroll
    for (int by_s = 0; by_s < 1; ++by_s) {
      const int by_j = (by_s) * 32 + by_lane;
      (void)by_j;
      if (by_j < 12) {
        acc = acc + (by_c0[(by_s)]);
      }
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    by_st0 = (float)((acc / 12.0f));
  }
  if (by_lane == 0) out0[by_row] = (float)(by_st0);
  float by_out;
  {
    float acc = 0.0f;
    #pragma unroll
    for (int by_s = 0; by_s < 1; ++by_s) {
      const int by_j = (by_s) * 32 + by_lane;
      (void)by_j;
      if (by_j < 12) {
        const float t0 = by_c0[(by_s)];
        acc = acc + ((t0 * t0));
      }
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    by_out = (float)(by_sqrt((((acc / 12.0f) - (by_st0 * by_st0)) + 9.999999747378752e-06f)));
  }
  if (by_lane == 0) out[0] = (float)(by_out);
}
BY_KERNEL void __launch_bounds__(32) reducemean_regrows_k0(const float* __restrict__ in0, float* __restrict__ out0, float* __restrict__ out) {
  reducemean_regrows_k0_body(in0, out0, out, by_this_block());
}

// ===== colaunch_k0 =====
BY_DEVICE void add_88c88bfcbd33e488_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0) | (unsigned long long)(in3) | (unsigned long long)(in4)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  const int i0 = 0;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 3; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        const int i1 = by_lin;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*12 + (i1)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        const uint4 by_r1 = by_ld_global_b128(in3 + ((i0)*12 + (i1)));
        const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
        const uint4 by_r2 = by_ld_global_b128(in4 + ((i0)*12 + (i1)));
        const float* const by_e2 = reinterpret_cast<const float*>(&by_r2);
        const float by_s0 = in1[(i0)];
        const float by_s1 = in2[(i0)];
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(((((by_e0[by_j] - by_s0) / by_s1) * by_e1[by_j]) + by_e2[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 3) {
          const int by_lin = by_q * 4;
          const int i1 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*12 + (i1)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in3 + ((i0)*12 + (i1)));
          const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
          const uint4 by_r2 = by_ld_global_b128(in4 + ((i0)*12 + (i1)));
          const float* const by_e2 = reinterpret_cast<const float*>(&by_r2);
          const float by_s0 = in1[(i0)];
          const float by_s1 = in2[(i0)];
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(((((by_e0[by_j] - by_s0) / by_s1) * by_e1[by_j]) + by_e2[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 3) {
          const int by_lin = by_q * 4;
          const int i1 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*12 + (i1)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in3 + ((i0)*12 + (i1)));
          const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
          const uint4 by_r2 = by_ld_global_b128(in4 + ((i0)*12 + (i1)));
          const float* const by_e2 = reinterpret_cast<const float*>(&by_r2);
          const float by_s0 = in1[(i0)];
          const float by_s1 = in2[(i0)];
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(((((by_e0[by_j] - by_s0) / by_s1) * by_e1[by_j]) + by_e2[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 3) {
          const int by_lin = by_q * 4;
          const int i1 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*12 + (i1)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in3 + ((i0)*12 + (i1)));
          const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
          const uint4 by_r2 = by_ld_global_b128(in4 + ((i0)*12 + (i1)));
          const float* const by_e2 = reinterpret_cast<const float*>(&by_r2);
          const float by_s0 = in1[(i0)];
          const float by_s1 = in2[(i0)];
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(((((by_e0[by_j] - by_s0) / by_s1) * by_e1[by_j]) + by_e2[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 12; by_lin += by_step) {
      const int i1 = by_lin;
      out[(i1)] = (float)(((((in0[(i0)*12 + (i1)] - in1[(i0)]) / in2[(i0)]) * in3[(i0)*12 + (i1)]) + in4[(i0)*12 + (i1)]));
    }
  }
}
BY_DEVICE void reciprocal_009e2212e221d80e_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 1; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 1) break;
      const int i0 = 0;
      const int i1 = 0;
      out[0] = (float)(by_reciprocal(in0[(i0) + (i1)]));
    }
  }
}
BY_DEVICE void colaunch_k0_body(const float* __restrict__ m0_in0, const float* __restrict__ m0_in1, const float* __restrict__ m0_in2, const float* __restrict__ m0_in3, const float* __restrict__ m0_in4, float* __restrict__ m0_out, const float* __restrict__ m1_in0, float* __restrict__ m1_out, const by_block_index by_block) {
  const unsigned int by_b = by_block.idx.x;
  if (by_b < 1u) add_88c88bfcbd33e488_body(m0_in0, m0_in1, m0_in2, m0_in3, m0_in4, m0_out, by_block_at(by_b - 0u, dim3(1, 1, 1)));
  else if (by_b < 2u) reciprocal_009e2212e221d80e_body(m1_in0, m1_out, by_block_at(by_b - 1u, dim3(1, 1, 1)));
}
BY_KERNEL void __launch_bounds__(512) colaunch_k0(const float* __restrict__ m0_in0, const float* __restrict__ m0_in1, const float* __restrict__ m0_in2, const float* __restrict__ m0_in3, const float* __restrict__ m0_in4, float* __restrict__ m0_out, const float* __restrict__ m1_in0, float* __restrict__ m1_out) {
  colaunch_k0_body(m0_in0, m0_in1, m0_in2, m0_in3, m0_in4, m0_out, m1_in0, m1_out, by_this_block());
}

// golden: test_leakyrelu h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: leakyrelu_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== leakyrelu_k0 =====
BY_DEVICE void leakyrelu_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          const float t0 = by_e0[by_j];
          by_oe[by_j] = (float)(((t0 < 0.0f) ? (t0 * 0.10000000149011612f) : t0));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)(((t0 < 0.0f) ? (t0 * 0.10000000149011612f) : t0));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)(((t0 < 0.0f) ? (t0 * 0.10000000149011612f) : t0));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)(((t0 < 0.0f) ? (t0 * 0.10000000149011612f) : t0));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      const float t0 = in0[(i0)*20 + (i1)*5 + (i2)];
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(((t0 < 0.0f) ? (t0 * 0.10000000149011612f) : t0));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) leakyrelu_k0(const float* __restrict__ in0, float* __restrict__ out) {
  leakyrelu_k0_body(in0, out, by_this_block());
}

// golden: test_less h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: less_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float out:bool]

// ===== less_k0 =====
BY_DEVICE void less_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, bool* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 60; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 60) break;
      int by_rem = lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (bool)((in0[(i0)*20 + (i1)*5 + (i2)] < in1[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) less_k0(const float* __restrict__ in0, const float* __restrict__ in1, bool* __restrict__ out) {
  less_k0_body(in0, in1, out, by_this_block());
}

// golden: test_less_equal h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: lessorequal_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float out:bool]

// ===== lessorequal_k0 =====
BY_DEVICE void lessorequal_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, bool* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 60; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 60) break;
      int by_rem = lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (bool)((in0[(i0)*20 + (i1)*5 + (i2)] <= in1[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) lessorequal_k0(const float* __restrict__ in0, const float* __restrict__ in1, bool* __restrict__ out) {
  lessorequal_k0_body(in0, in1, out, by_this_block());
}

// golden: test_linear_attention_decode_step h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: linear_attention_k0 grid=[8, 1, 1] block=[32, 1, 1] shared=100 params=[float float float float float float out:float out:float]

// ===== linear_attention_k0 =====
BY_DEVICE void linear_attention_k0_body(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v, const float* __restrict__ past, const float* __restrict__ decay, const float* __restrict__ beta, float* __restrict__ out, float* __restrict__ present, const by_block_index by_block) {
  constexpr int T_ = 1, HQ = 4, HKV = 4, DK = 8, DV = 8, GROUP = 1;
  BY_SHARED_BUFFER(smem);
  float* sh = (float*)smem;
  const int bh = by_block.idx.x;
  const int bi = bh / HKV, h = bh % HKV;
  const int j = threadIdx.x;
  const bool col = j < DV;
  float s[DK];
  #pragma unroll
  for (int i = 0; i < DK; ++i)
    s[i] = col ? (float)past[(((long long)bi * HKV + h) * DK + i) * DV + j] : 0.0f;
  for (int t = 0; t < T_; ++t) {
    const long long row = (long long)bi * T_ + t;
    for (int e = threadIdx.x; e < DK; e += blockDim.x)
      sh[0 + e] = (float)k[row * HKV * DK + (long long)h * DK + e];
    for (int e = threadIdx.x; e < GROUP * DK; e += blockDim.x)
      sh[8 + e] = (float)q[row * HQ * DK + ((long long)h * GROUP) * DK + e];
    for (int e = threadIdx.x; e < 8; e += blockDim.x)
      sh[16 + e] = by_exp((float)decay[row * HKV * DK + (long long)h * DK + e]);
    if (threadIdx.x == 0)
      sh[24] = (float)beta[row * 4 + h];
    __syncthreads();
    if (col) {
      #pragma unroll
      for (int i = 0; i < DK; ++i)
        s[i] *= sh[16 + i];
      const float vj = (float)v[row * HKV * DV + (long long)h * DV + j];
      float recalled = 0.0f;
      #pragma unroll
      for (int i = 0; i < DK; ++i)
        recalled += s[i] * sh[0 + i];
      const float w = sh[24] * (vj - recalled);
      #pragma unroll
      for (int i = 0; i < DK; ++i)
        s[i] += sh[0 + i] * w;
      for (int gq = 0; gq < GROUP; ++gq) {
        float o = 0.0f;
        #pragma unroll
        for (int i = 0; i < DK; ++i)
          o += sh[8 + gq * DK + i] * s[i];
        out[row * HQ * DV + ((long long)h * GROUP + gq) * DV + j] = (float)(0.35355339059327373f * o);
      }
    }
    __syncthreads();
  }
  if (col) {
    #pragma unroll
    for (int i = 0; i < DK; ++i)
      present[(((long long)bi * HKV + h) * DK + i) * DV + j] = (float)(s[i]);
  }
}
BY_KERNEL void __launch_bounds__(32) linear_attention_k0(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v, const float* __restrict__ past, const float* __restrict__ decay, const float* __restrict__ beta, float* __restrict__ out, float* __restrict__ present) {
  linear_attention_k0_body(q, k, v, past, decay, beta, out, present, by_this_block());
}

// golden: test_log h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: log_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== log_k0 =====
BY_DEVICE void log_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_log(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_log(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_log(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_log(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_log(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) log_k0(const float* __restrict__ in0, float* __restrict__ out) {
  log_k0_body(in0, out, by_this_block());
}

// golden: test_logsoftmax_axis_0 h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: logsoftmax_regrows_k0 grid=[20, 1, 1] block=[32, 1, 1] shared=0 params=[float out:float]

// ===== logsoftmax_regrows_k0 =====
BY_DEVICE void logsoftmax_regrows_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const int by_row = (int)by_block.idx.x * 1 + (threadIdx.x >> 5);
  if (by_row >= 20) return;  // the whole warp leaves together
  const int by_lane = threadIdx.x & 31;
  int by_rrem = by_row;
  const int by_r1 = by_rrem % 5; by_rrem /= 5;
  const int by_r0 = by_rrem;
  (void)by_rrem;
  float by_c0[1];
  #pragma unroll
  for (int by_k = 0; by_k < 1; ++by_k) {
    const int by_j0 = by_k * 32 + by_lane * 1;
    if (by_j0 < 3) {
      #pragma unroll
      for (int by_u = 0; by_u < 1; ++by_u) {
        const int by_j = by_j0 + by_u;
        by_c0[by_k * 1 + by_u] = in0[(by_j)*20 + (by_r0)*5 + (by_r1)];
      }
    }
  }
  float by_st0;
  {
    float acc = (-by_inf_f());
    #pragma unroll
    for (int by_s = 0; by_s < 1; ++by_s) {
      const int by_j = (by_s) * 32 + by_lane;
      (void)by_j;
      if (by_j < 3) {
        acc = by_max(acc, (by_c0[(by_s)]));
      }
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = by_max(acc, o);
    }
    by_st0 = (float)(acc);
  }
  float by_st1;
  {
    float acc = 0.0f;
    #pragma unroll
    for (int by_s = 0; by_s < 1; ++by_s) {
      const int by_j = (by_s) * 32 + by_lane;
      (void)by_j;
      if (by_j < 3) {
        acc = acc + (by_exp((by_c0[(by_s)] - by_st0)));
      }
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    by_st1 = (float)(acc);
  }
  float by_o[1];
  #pragma unroll
  for (int by_s = 0; by_s < 1; ++by_s) {
    const int by_j = (by_s) * 32 + by_lane;
    (void)by_j;
    if (by_j < 3) {
      by_o[by_s] = (float)(((by_c0[(by_s)] - by_st0) - by_log(by_st1)));
    }
  }
  #pragma unroll
  for (int by_k = 0; by_k < 1; ++by_k) {
    const int by_j0 = by_k * 32 + by_lane * 1;
    if (by_j0 < 3) {
      #pragma unroll
      for (int by_u = 0; by_u < 1; ++by_u) {
        const int by_j = by_j0 + by_u;
        int by_crem = by_j;
        const int by_i0 = by_crem;
        (void)by_crem;
        out[by_i0 * 20 + by_r0 * 5 + by_r1 * 1] = by_o[by_k * 1 + by_u];
      }
    }
  }
}
BY_KERNEL void __launch_bounds__(32) logsoftmax_regrows_k0(const float* __restrict__ in0, float* __restrict__ out) {
  logsoftmax_regrows_k0_body(in0, out, by_this_block());
}

// golden: test_logsoftmax_axis_0_expanded_ver18 h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: sub_regrows_k0 grid=[20, 1, 1] block=[32, 1, 1] shared=0 params=[float out:float]

// ===== sub_regrows_k0 =====
BY_DEVICE void sub_regrows_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const int by_row = (int)by_block.idx.x * 1 + (threadIdx.x >> 5);
  if (by_row >= 20) return;  // the whole warp leaves together
  const int by_lane = threadIdx.x & 31;
  int by_rrem = by_row;
  const int by_r1 = by_rrem % 5; by_rrem /= 5;
  const int by_r0 = by_rrem;
  (void)by_rrem;
  float by_c0[1];
  #pragma unroll
  for (int by_k = 0; by_k < 1; ++by_k) {
    const int by_j0 = by_k * 32 + by_lane * 1;
    if (by_j0 < 3) {
      #pragma unroll
      for (int by_u = 0; by_u < 1; ++by_u) {
        const int by_j = by_j0 + by_u;
        by_c0[by_k * 1 + by_u] = in0[(by_j)*20 + (by_r0)*5 + (by_r1)];
      }
    }
  }
  float by_st0;
  {
    float acc = (-by_inf_f());
    #pragma unroll
    for (int by_s = 0; by_s < 1; ++by_s) {
      const int by_j = (by_s) * 32 + by_lane;
      (void)by_j;
      if (by_j < 3) {
        acc = by_max(acc, (by_c0[(by_s)]));
      }
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = by_max(acc, o);
    }
    by_st0 = (float)(acc);
  }
  float by_st1;
  {
    float acc = 0.0f;
    #pragma unroll
    for (int by_s = 0; by_s < 1; ++by_s) {
      const int by_j = (by_s) * 32 + by_lane;
      (void)by_j;
      if (by_j < 3) {
        acc = acc + (by_exp((by_c0[(by_s)] - by_st0)));
      }
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    by_st1 = (float)(by_log(acc));
  }
  float by_o[1];
  #pragma unroll
  for (int by_s = 0; by_s < 1; ++by_s) {
    const int by_j = (by_s) * 32 + by_lane;
    (void)by_j;
    if (by_j < 3) {
      by_o[by_s] = (float)(((by_c0[(by_s)] - by_st0) - by_st1));
    }
  }
  #pragma unroll
  for (int by_k = 0; by_k < 1; ++by_k) {
    const int by_j0 = by_k * 32 + by_lane * 1;
    if (by_j0 < 3) {
      #pragma unroll
      for (int by_u = 0; by_u < 1; ++by_u) {
        const int by_j = by_j0 + by_u;
        int by_crem = by_j;
        const int by_i0 = by_crem;
        (void)by_crem;
        out[by_i0 * 20 + by_r0 * 5 + by_r1 * 1] = by_o[by_k * 1 + by_u];
      }
    }
  }
}
BY_KERNEL void __launch_bounds__(32) sub_regrows_k0(const float* __restrict__ in0, float* __restrict__ out) {
  sub_regrows_k0_body(in0, out, by_this_block());
}

// golden: test_loop11 h100 fp32
// refused: shape

// golden: test_lppool_1d_default h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: lppool_k0 grid=[2, 1, 1] block=[128, 1, 1] shared=512 params=[float out:float]

// ===== lppool_k0 =====
BY_DEVICE void lppool_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  const int tid = threadIdx.x;
  const int by_r = tid % 64, by_g = tid / 64;
  const int row = (int)by_block.idx.x * 64 + by_r;
  const bool active = row < 93;
  float by_racc = 0;
  const int i0 = 0;
  const int rowc = active ? row : 0;
  int by_rr = rowc;
  const int i2 = by_rr % 31; by_rr /= 31;
  const int i1 = by_rr;
  if (active) {
    #pragma unroll 4
    for (int k = by_g; k < 2; k += 2) {
      const int r0 = k;
      const float v = by_pow(by_abs(in0[(i0)*96 + (i1)*32 + ((i2 + r0))]), 3.0f);
      by_racc = by_racc + v;
    }
  }
  float* const part = reinterpret_cast<float*>(by_smem);
  part[tid] = by_racc;
  __syncthreads();
  if (by_g != 0 || !active) return;
  for (int g = 1; g < 2; ++g) {
    const float other = part[g * 64 + by_r];
    by_racc = by_racc + other;
  }
  const float acc = by_racc;
  out[(i1)*31 + (i2)] = (float)(by_pow(acc, 0.3333333333333333f));
}
BY_KERNEL void __launch_bounds__(128) lppool_k0(const float* __restrict__ in0, float* __restrict__ out) {
  lppool_k0_body(in0, out, by_this_block());
}

// golden: test_lrn h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: lrn_k0 grid=[20, 1, 1] block=[128, 1, 1] shared=0 params=[float out:float]

// ===== lrn_k0 =====
BY_DEVICE void lrn_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const int tid = threadIdx.x;
  const int lane = tid % 4;
  const int row = (int)by_block.idx.x * 32 + tid / 4;
  const bool active = row < 625;
  float by_racc = 0;
  const int rowc = active ? row : 0;
  int by_rr = rowc;
  const int i3 = by_rr % 5; by_rr /= 5;
  const int i2 = by_rr % 5; by_rr /= 5;
  const int i1 = by_rr % 5; by_rr /= 5;
  const int i0 = by_rr;
  if (active) for (int k = lane; k < 3; k += 4) {
    const int r0 = k;
    const int t0 = ((i1 - (1ll)) + r0);
    const float v = (((t0 >= (0ll)) && (t0 < (5ll))) ? (in0[(i0)*125 + (t0)*25 + (i2)*5 + (i3)] * in0[(i0)*125 + (t0)*25 + (i2)*5 + (i3)]) : 0.0f);
    by_racc = by_racc + v;
  }
  for (int o = 2; o > 0; o >>= 1) {
    const float other = __shfl_xor_sync(0xFFFFFFFFu, by_racc, o);
    by_racc = by_racc + other;
  }
  if (active && lane == 0) {
    const float acc = by_racc;
    out[(i0)*125 + (i1)*25 + (i2)*5 + (i3)] = (float)((in0[(i0)*125 + (i1)*25 + (i2)*5 + (i3)] / by_pow((2.0f + (acc * 6.6666664982525e-05f)), 0.5f)));
  }
}
BY_KERNEL void __launch_bounds__(128) lrn_k0(const float* __restrict__ in0, float* __restrict__ out) {
  lrn_k0_body(in0, out, by_this_block());
}

// golden: test_lstm_batchwise h100 fp32
// 2 launches, 2 distinct kernels
// launch 0: lstm_xw_k0 grid=[4, 1, 1] block=[32, 1, 1] shared=96 params=[float float out:float]
// launch 1: lstm_recurrence_k0 grid=[3, 1, 1] block=[64, 1, 1] shared=168 params=[float float out:float out:float]

// ===== lstm_xw_k0 =====
BY_DEVICE void lstm_xw_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 8;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 4) * 8; by_blk /= 4;
  const int by_m0 = (by_blk % 1) * 4; by_blk /= 1;
  const int i0 = 0;
  const int i1 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  for (int kt = 0; kt < 1; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 8; e += 32) {
      const int kk = e % 2; const int rr = e / 2;
      const int gr = by_ar0 + rr; const int gk = kt * 2 + kk;
      float v = 0;
      if (gr < 3) {
        const int i2 = gr;
        const int r0 = gk;
        v = in0[(i2)*2 + (i1)*2 + (r0)];
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 16; e += 32) {
      const int kk = e % 2; const int rr = e / 2;
      const int gr = by_br0 + rr; const int gk = kt * 2 + kk;
      float v = 0;
      if (gr < 28) {
        const int i3 = gr;
        const int r0 = gk;
        v = in1[(i0)*56 + (i3)*2 + (r0)];
      }
      by_bs[kk * 8 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 8;
    const float* const bs = by_bs + cur * 16;
    #pragma unroll
    for (int kk = 0; kk < 2; ++kk) {
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
    if (gm >= 3) continue;
    const int i2 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 8;
      if (gn >= 28) continue;
      const int i3 = gn;
      const float acc = by_acc[i][j];
      out[(i2)*28 + (i3)] = (float)(acc);
    }
  }
}
BY_KERNEL void lstm_xw_k0(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out) {
  lstm_xw_k0_body(in0, in1, out, by_this_block());
}

// ===== lstm_recurrence_k0 =====
BY_DEVICE void lstm_recurrence_k0_body(const float* __restrict__ xw, const float* __restrict__ R, float* __restrict__ y, float* __restrict__ y_h, const by_block_index by_block) {
  constexpr int SEQ = 1, BATCH = 3, DIRS = 1, HID = 7, GH = 28;
  BY_SHARED_BUFFER(smem);
  float* h = (float*)smem;
  float* gates = h + HID;
  float* cst = gates + GH;
  const int b = by_block.idx.x;
  const int d = by_block.idx.y;
  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const float* Rd = R + (long long)d * GH * HID;
  const int len = SEQ;
  const bool rev = false;
  for (int j = tid; j < HID; j += 64) {
    h[j] = 0.0f;
    cst[j] = 0.0f;
  }
  __syncthreads();
  for (int s = 0; s < len; ++s) {
    const int t = rev ? len - 1 - s : s;
    const float* x = xw + (((long long)d * SEQ + t) * BATCH + b) * GH;
    for (int row = 0 + warp; row < 28; row += 2) {
      const float* rr = Rd + (long long)row * HID;
      float acc = 0.0f;
      for (int k = lane; k < HID; k += 32) acc += (float)rr[k] * h[k];
      for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
      if (lane == 0) gates[row] = acc;
    }
    __syncthreads();
    for (int j = tid; j < HID; j += 64) {
      const float cp = cst[j];
      const float ip = (x[0 * HID + j] + gates[0 * HID + j]);
      const float ig = by_sigmoid(ip);
      const float fp = (x[2 * HID + j] + gates[2 * HID + j]);
      const float fg = by_sigmoid(fp);
      const float gp = (x[3 * HID + j] + gates[3 * HID + j]);
      const float cn = fg * cp + ig * by_tanh(gp);
      const float op = (x[1 * HID + j] + gates[1 * HID + j]);
      const float og = by_sigmoid(op);
      const float hn = og * by_tanh(cn);
      cst[j] = cn;
      h[j] = hn;
      y[(((long long)b * SEQ + t) * DIRS + d) * HID + j] = (float)(hn);
    }
    __syncthreads();
  }
  for (int j = tid; j < HID; j += 64) {
    y_h[((long long)b * DIRS + d) * HID + j] = (float)(h[j]);
  }
}
BY_KERNEL void __launch_bounds__(64) lstm_recurrence_k0(const float* __restrict__ xw, const float* __restrict__ R, float* __restrict__ y, float* __restrict__ y_h) {
  lstm_recurrence_k0_body(xw, R, y, y_h, by_this_block());
}

// golden: test_matmulinteger h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: matmul_integer_k0 grid=[1, 1, 1] block=[32, 1, 1] shared=192 params=[unsigned char unsigned char unsigned char unsigned char out:int]

// ===== matmul_integer_k0 =====
BY_DEVICE void matmul_integer_k0_body(const unsigned char* __restrict__ in0, const unsigned char* __restrict__ in1, const unsigned char* __restrict__ in2, const unsigned char* __restrict__ in3, int* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  int* const by_as = reinterpret_cast<int*>(by_smem);
  int* const by_bs = by_as + 16;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 1) * 8; by_blk /= 1;
  const int by_m0 = (by_blk % 1) * 4; by_blk /= 1;
  int by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  for (int kt = 0; kt < 1; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 16; e += 32) {
      const int kk = e % 4; const int rr = e / 4;
      const int gr = by_ar0 + rr; const int gk = kt * 4 + kk;
      int v = 0;
      if (gk < 3) {
        const int i0 = gr;
        const int r0 = gk;
        v = (((int)(in0[(i0)*3 + (r0)])) - ((int)(in2[0])));
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 32; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_br0 + rr; const int gk = kt * 4 + kk;
      int v = 0;
      if (gr < 2 && gk < 3) {
        const int i1 = gr;
        const int r0 = gk;
        v = (((int)(in1[(r0)*2 + (i1)])) - ((int)(in3[0])));
      }
      by_bs[kk * 8 + rr] = v;
    }
    __syncthreads();
    const int* const as = by_as + cur * 16;
    const int* const bs = by_bs + cur * 32;
    #pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      int a[1], b[1];
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
    const int i0 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 8;
      if (gn >= 2) continue;
      const int i1 = gn;
      const int acc = by_acc[i][j];
      out[(i0)*2 + (i1)] = (int)(acc);
    }
  }
}
BY_KERNEL void matmul_integer_k0(const unsigned char* __restrict__ in0, const unsigned char* __restrict__ in1, const unsigned char* __restrict__ in2, const unsigned char* __restrict__ in3, int* __restrict__ out) {
  matmul_integer_k0_body(in0, in1, in2, in3, out, by_this_block());
}

// golden: test_maxpool_1d_default h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: maxpool_k0 grid=[2, 1, 1] block=[128, 1, 1] shared=512 params=[float out:float]

// ===== maxpool_k0 =====
BY_DEVICE void maxpool_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  const int tid = threadIdx.x;
  const int by_r = tid % 64, by_g = tid / 64;
  const int row = (int)by_block.idx.x * 64 + by_r;
  const bool active = row < 93;
  float by_racc = 0;
  int have = 0;
  const int i0 = 0;
  const int rowc = active ? row : 0;
  int by_rr = rowc;
  const int i2 = by_rr % 31; by_rr /= 31;
  const int i1 = by_rr;
  if (active) {
    #pragma unroll 4
    for (int k = by_g; k < 2; k += 2) {
      const int r0 = k;
      const float v = in0[(i0)*96 + (i1)*32 + ((i2 + r0))];
      by_racc = have ? by_max(by_racc, v) : v; have = 1;
    }
  }
  (void)have;
  float* const part = reinterpret_cast<float*>(by_smem);
  part[tid] = by_racc;
  __syncthreads();
  if (by_g != 0 || !active) return;
  for (int g = 1; g < 2; ++g) {
    const float other = part[g * 64 + by_r];
    by_racc = by_max(by_racc, other);
  }
  const float acc = by_racc;
  out[(i1)*31 + (i2)] = (float)(acc);
}
BY_KERNEL void __launch_bounds__(128) maxpool_k0(const float* __restrict__ in0, float* __restrict__ out) {
  maxpool_k0_body(in0, out, by_this_block());
}

// golden: test_maxunpool_export_with_output_shape h100 fp32
// refused: shape

// golden: test_mean_example h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: mean_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float float out:float]

// ===== mean_k0 =====
BY_DEVICE void mean_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 3; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 3) break;
      const int i0 = lin;
      out[(i0)] = (float)((((in0[(i0)] + in1[(i0)]) + in2[(i0)]) / 3.0f));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) mean_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  mean_k0_body(in0, in1, in2, out, by_this_block());
}

// golden: test_melweightmatrix h100 fp32
// refused: shape

// golden: test_min_example h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: min_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float float out:float]

// ===== min_k0 =====
BY_DEVICE void min_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 3; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 3) break;
      const int i0 = lin;
      out[(i0)] = (float)(by_min(by_min(in0[(i0)], in1[(i0)]), in2[(i0)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) min_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  min_k0_body(in0, in1, in2, out, by_this_block());
}

// golden: test_mish h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: mish_k0 grid=[2, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== mish_k0 =====
BY_DEVICE void mish_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 2500; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        const int i0 = by_lin;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          const float t0 = by_e0[by_j];
          by_oe[by_j] = (float)((t0 * by_tanh(by_softplus(t0))));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 2500) {
          const int by_lin = by_q * 4;
          const int i0 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)((t0 * by_tanh(by_softplus(t0))));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 2500) {
          const int by_lin = by_q * 4;
          const int i0 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)((t0 * by_tanh(by_softplus(t0))));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 2500) {
          const int by_lin = by_q * 4;
          const int i0 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)((t0 * by_tanh(by_softplus(t0))));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 10000; by_lin += by_step) {
      const int i0 = by_lin;
      const float t0 = in0[(i0)];
      out[(i0)] = (float)((t0 * by_tanh(by_softplus(t0))));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) mish_k0(const float* __restrict__ in0, float* __restrict__ out) {
  mish_k0_body(in0, out, by_this_block());
}

// golden: test_mod_broadcast h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: mod_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[int int out:int]

// ===== mod_k0 =====
BY_DEVICE void mod_k0_body(const int* __restrict__ in0, const int* __restrict__ in1, int* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 7; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 2; by_rem /= 2;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*10 + (i1)*5 + (i2)));
        const int* const by_e0 = reinterpret_cast<const int*>(&by_r0);
        const int by_s0 = in1[0];
        uint4 by_o;
        int* const by_oe = reinterpret_cast<int*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (int)(by_pymod(by_e0[by_j], by_s0));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 7) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 2; by_rem /= 2;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*10 + (i1)*5 + (i2)));
          const int* const by_e0 = reinterpret_cast<const int*>(&by_r0);
          const int by_s0 = in1[0];
          uint4 by_o;
          int* const by_oe = reinterpret_cast<int*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (int)(by_pymod(by_e0[by_j], by_s0));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 7) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 2; by_rem /= 2;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*10 + (i1)*5 + (i2)));
          const int* const by_e0 = reinterpret_cast<const int*>(&by_r0);
          const int by_s0 = in1[0];
          uint4 by_o;
          int* const by_oe = reinterpret_cast<int*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (int)(by_pymod(by_e0[by_j], by_s0));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 7) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 2; by_rem /= 2;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*10 + (i1)*5 + (i2)));
          const int* const by_e0 = reinterpret_cast<const int*>(&by_r0);
          const int by_s0 = in1[0];
          uint4 by_o;
          int* const by_oe = reinterpret_cast<int*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (int)(by_pymod(by_e0[by_j], by_s0));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
    for (int by_lin = 28 + by_tid; by_lin < 30; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 2; by_rem /= 2;
      const int i0 = by_rem;
      out[(i0)*10 + (i1)*5 + (i2)] = (int)(by_pymod(in0[(i0)*10 + (i1)*5 + (i2)], in1[0]));
    }
  } else {
    for (int by_lin = by_tid; by_lin < 30; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 2; by_rem /= 2;
      const int i0 = by_rem;
      out[(i0)*10 + (i1)*5 + (i2)] = (int)(by_pymod(in0[(i0)*10 + (i1)*5 + (i2)], in1[0]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) mod_k0(const int* __restrict__ in0, const int* __restrict__ in1, int* __restrict__ out) {
  mod_k0_body(in0, in1, out, by_this_block());
}

// golden: test_momentum h100 fp32
// refused: invalid_model

// golden: test_mul h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: mul_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float out:float]

// ===== mul_k0 =====
BY_DEVICE void mul_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0) | (unsigned long long)(in1)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)((by_e0[by_j] * by_e1[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)((by_e0[by_j] * by_e1[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)((by_e0[by_j] * by_e1[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)((by_e0[by_j] * by_e1[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)((in0[(i0)*20 + (i1)*5 + (i2)] * in1[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) mul_k0(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out) {
  mul_k0_body(in0, in1, out, by_this_block());
}

// golden: test_mvn h100 fp32
// 3 launches, 3 distinct kernels
// launch 0: mvn_mean_k0 grid=[1, 1, 1] block=[256, 1, 1] shared=0 params=[float out:float]
// launch 1: mvn_var_k0 grid=[1, 1, 1] block=[256, 1, 1] shared=0 params=[float float out:float]
// launch 2: mvn_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float float out:float]

// ===== mvn_mean_k0 =====
BY_DEVICE void mvn_mean_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const int tid = threadIdx.x;
  const int lane = tid % 1;
  const int row = (int)by_block.idx.x * 256 + tid / 1;
  const bool active = row < 3;
  float by_racc = 0;
  const int i0 = 0;
  const int i2 = 0;
  const int i3 = 0;
  const int rowc = active ? row : 0;
  const int i1 = rowc;
  if (active) for (int k = lane; k < 9; k += 1) {
    int by_rk = k;
    const int r2 = by_rk % 1; by_rk /= 1;
    const int r1 = by_rk % 3; by_rk /= 3;
    const int r0 = by_rk;
    const float v = in0[(r0)*9 + (i1)*3 + (r1) + (r2)];
    by_racc = by_racc + v;
  }
  if (active && lane == 0) {
    const float acc = by_racc;
    out[(i1)] = (float)((acc / 9.0f));
  }
}
BY_KERNEL void __launch_bounds__(256) mvn_mean_k0(const float* __restrict__ in0, float* __restrict__ out) {
  mvn_mean_k0_body(in0, out, by_this_block());
}

// ===== mvn_var_k0 =====
BY_DEVICE void mvn_var_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  const int tid = threadIdx.x;
  const int lane = tid % 1;
  const int row = (int)by_block.idx.x * 256 + tid / 1;
  const bool active = row < 3;
  float by_racc = 0;
  const int i0 = 0;
  const int i2 = 0;
  const int i3 = 0;
  const int rowc = active ? row : 0;
  const int i1 = rowc;
  if (active) for (int k = lane; k < 9; k += 1) {
    int by_rk = k;
    const int r2 = by_rk % 1; by_rk /= 1;
    const int r1 = by_rk % 3; by_rk /= 3;
    const int r0 = by_rk;
    const float t0 = (in0[(r0)*9 + (i1)*3 + (r1) + (r2)] - in1[(i0)*3 + (i1) + (i2) + (i3)]);
    const float v = (t0 * t0);
    by_racc = by_racc + v;
  }
  if (active && lane == 0) {
    const float acc = by_racc;
    out[(i1)] = (float)((acc / 9.0f));
  }
}
BY_KERNEL void __launch_bounds__(256) mvn_var_k0(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out) {
  mvn_var_k0_body(in0, in1, out, by_this_block());
}

// ===== mvn_k0 =====
BY_DEVICE void mvn_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 27; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 27) break;
      const int i3 = 0;
      int by_rem = lin;
      const int i2 = by_rem % 3; by_rem /= 3;
      const int i1 = by_rem % 3; by_rem /= 3;
      const int i0 = by_rem;
      out[(i0)*9 + (i1)*3 + (i2)] = (float)(((in0[(i0)*9 + (i1)*3 + (i2) + (i3)] - in1[(i1)]) / (by_sqrt(in2[(i1)]) + 1e-09f)));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) mvn_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  mvn_k0_body(in0, in1, in2, out, by_this_block());
}

// golden: test_neg h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: neg_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== neg_k0 =====
BY_DEVICE void neg_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_neg(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_neg(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_neg(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_neg(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_neg(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) neg_k0(const float* __restrict__ in0, float* __restrict__ out) {
  neg_k0_body(in0, out, by_this_block());
}

// golden: test_nllloss_NC h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: nll_loss_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float long long out:float]

// ===== nll_loss_k0 =====
BY_DEVICE void nll_loss_k0_body(const float* __restrict__ in0, const long long* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 3; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 3) break;
      const int i0 = lin;
      out[(i0)] = (float)(by_neg(in0[(i0)*5 + (by_min((long long)(by_max((long long)(in1[(i0)]), (long long)((0ll)))), (long long)((4ll))))]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) nll_loss_k0(const float* __restrict__ in0, const long long* __restrict__ in1, float* __restrict__ out) {
  nll_loss_k0_body(in0, in1, out, by_this_block());
}

// golden: test_nonmaxsuppression_center_point_box_format h100 fp32
// 2 launches, 2 distinct kernels
// launch 0: nms_select_k0 grid=[1, 1, 1] block=[128, 1, 1] shared=3232 params=[float float long long float float out:float out:long long out:long long out:long long]
// launch 1: nms_place_k0 grid=[1, 1, 1] block=[128, 1, 1] shared=0 params=[long long long long out:long long out:long long]

// ===== nms_select_k0 =====
BY_DEVICE bool nms_select_k0_suppress(const float* a, const float* b, float t) {
  const float ax0 = __fsub_rn(a[0], a[2] / 2.0f), ax1 = __fadd_rn(a[0], a[2] / 2.0f);
  const float bx0 = __fsub_rn(b[0], b[2] / 2.0f), bx1 = __fadd_rn(b[0], b[2] / 2.0f);
  const float ay0 = __fsub_rn(a[1], a[3] / 2.0f), ay1 = __fadd_rn(a[1], a[3] / 2.0f);
  const float by0 = __fsub_rn(b[1], b[3] / 2.0f), by1 = __fadd_rn(b[1], b[3] / 2.0f);
  const float ix0 = by_max(ax0, bx0), ix1 = by_min(ax1, bx1), iy0 = by_max(ay0, by0), iy1 = by_min(ay1, by1);
  if (ix1 <= ix0 || iy1 <= iy0) return false;
  const float inter = __fmul_rn(__fsub_rn(ix1, ix0), __fsub_rn(iy1, iy0));
  const float area_a = __fmul_rn(__fsub_rn(ax1, ax0), __fsub_rn(ay1, ay0));
  const float area_b = __fmul_rn(__fsub_rn(bx1, bx0), __fsub_rn(by1, by0));
  const float uni = __fsub_rn(__fadd_rn(area_a, area_b), inter);
  if (inter <= 0.0f || area_a <= 0.0f || area_b <= 0.0f || uni <= 0.0f) return false;
  return __fdiv_rn(inter, uni) > t;
}

BY_DEVICE void nms_select_k0_body(const float* __restrict__ boxes, const float* __restrict__ scores, const long long* __restrict__ max_out, const float* __restrict__ iou, const float* __restrict__ score_min, float* __restrict__ sort_keys, long long* __restrict__ sort_ids, long long* __restrict__ taken, long long* __restrict__ counts, const by_block_index by_block) {
  constexpr long long N = 6, C = 1, CAP = 6, W = 8, T = 128;
  const long long bc = by_block.idx.x, bi = bc / C;
  BY_SHARED_BUFFER(smem);
  float* chunk = (float*)smem;                          // the next T ranked boxes' corners
  long long* chunk_i = (long long*)(smem + T * 16);     // their indices
  int* warp_total = (int*)(smem + T * 24);              // candidates per warp of a T-box run
  float* kept_box = (float*)(smem + 3136);
  const float* bx = boxes + bi * N * 4;
  const float* sc = scores + bc * N;
  float* key = sort_keys + bc * W;
  long long* id = sort_ids + bc * W;
  long long* mine = taken + bc * CAP;
  // 1. the candidates (scored above the threshold) gathered in box order: a ballot per warp
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  long long k = 0;
  for (long long p0 = 0; p0 < N; p0 += T) {
    const long long p = p0 + threadIdx.x;
    const bool is = p < N && sc[p] > score_min[0];
    const unsigned votes = __ballot_sync(0xffffffffu, is);
    if (lane == 0) warp_total[warp] = __popc(votes);
    __syncthreads();
    int at = __popc(votes & ((1u << lane) - 1u)), total = 0;
    for (int w = 0; w < T / 32; ++w) { at += w < warp ? warp_total[w] : 0; total += warp_total[w]; }
    if (is) { key[k + at] = sc[p]; id[k + at] = p; }
    k += total;
    __syncthreads();   // warp_total is the next run's
  }
  // 2. sorted by descending score, ties to the lower box (a bitonic sort of the next power of
  //    two, padded with entries that sort last)
  long long width = 1;
  while (width < k) width <<= 1;
  for (long long e = k + threadIdx.x; e < width; e += T) { key[e] = -by_inf_f(); id[e] = N; }
  __syncthreads();
  for (long long size = 2; size <= width; size <<= 1) {
    for (long long stride = size >> 1; stride > 0; stride >>= 1) {
      for (long long e = threadIdx.x; e < width; e += T) {
        const long long o = e ^ stride;
        if (o <= e) continue;
        const float ke = key[e], ko = key[o];
        const long long ie = id[e], io = id[o];
        const bool o_first = ko > ke || (ko == ke && io < ie);
        const bool e_first = ke > ko || (ke == ko && ie < io);
        if ((e & size) == 0 ? o_first : e_first) { key[e] = ko; key[o] = ke; id[e] = io; id[o] = ie; }
      }
      __syncthreads();
    }
  }
  const long long limit = by_min(by_max(max_out[0], 0ll), 6ll);
  const float t = iou[0];
  // 3. the greedy walk: each ranked box tested against the ones taken, a T-box chunk staged
  //    in shared memory at a time, so a step waits on no memory round trip
  long long kept = 0;
  for (long long p0 = 0; p0 < k && kept < limit; p0 += T) {
    if (p0 + threadIdx.x < k) {
      const long long i = id[p0 + threadIdx.x];
      chunk_i[threadIdx.x] = i;
      for (int d = 0; d < 4; ++d) chunk[threadIdx.x * 4 + d] = bx[i * 4 + d];
    }
    __syncthreads();
    const long long steps = by_min(T, k - p0);
    for (long long s = 0; s < steps && kept < limit; ++s) {
      int hit = 0;
      for (long long q = threadIdx.x; q < kept && !hit; q += T)
        hit = nms_select_k0_suppress(chunk + s * 4, kept_box + q * 4, t);
      if (!__syncthreads_or(hit)) {
        if (threadIdx.x == 0) {
          mine[kept] = chunk_i[s];
          for (int d = 0; d < 4; ++d) kept_box[kept * 4 + d] = chunk[s * 4 + d];
        }
        ++kept;
      }
      __syncthreads();   // the box taken is in kept_box before the next step reads it
    }
  }
  if (threadIdx.x == 0) counts[bc] = kept;
}
BY_KERNEL void __launch_bounds__(128) nms_select_k0(const float* __restrict__ boxes, const float* __restrict__ scores, const long long* __restrict__ max_out, const float* __restrict__ iou, const float* __restrict__ score_min, float* __restrict__ sort_keys, long long* __restrict__ sort_ids, long long* __restrict__ taken, long long* __restrict__ counts) {
  nms_select_k0_body(boxes, scores, max_out, iou, score_min, sort_keys, sort_ids, taken, counts, by_this_block());
}

// ===== nms_place_k0 =====
BY_DEVICE void nms_place_k0_body(const long long* __restrict__ taken, const long long* __restrict__ counts, long long* __restrict__ selected, long long* __restrict__ count, const by_block_index by_block) {
  constexpr long long C = 1, CAP = 6, ROWS = 6;
  const long long bc = by_block.idx.x, nbc = 1;
  long long at = 0;
  for (long long k = 0; k < bc; ++k) at += counts[k];
  for (long long q = threadIdx.x; q < counts[bc]; q += blockDim.x) {
    long long* row = selected + (at + q) * 3;
    row[0] = bc / C; row[1] = bc % C; row[2] = taken[bc * CAP + q];
  }
  if (bc == 0) {
    long long total = 0;
    for (long long k = 0; k < nbc; ++k) total += counts[k];
    for (long long e = total * 3 + threadIdx.x; e < ROWS * 3; e += blockDim.x) selected[e] = 0;
    if (threadIdx.x == 0) count[0] = total;
  }
}
BY_KERNEL void __launch_bounds__(128) nms_place_k0(const long long* __restrict__ taken, const long long* __restrict__ counts, long long* __restrict__ selected, long long* __restrict__ count) {
  nms_place_k0_body(taken, counts, selected, count, by_this_block());
}

// golden: test_nonzero_example h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: nonzero_k0 grid=[1, 1, 1] block=[256, 1, 1] shared=2056 params=[bool out:long long out:long long]

// ===== nonzero_k0 =====
BY_DEVICE void nonzero_k0_body(const bool* __restrict__ x, long long* __restrict__ y, long long* __restrict__ count, const by_block_index by_block) {
  constexpr long long N = 4, RUN = 1;
  BY_SHARED_BUFFER(smem);
  long long* first = (long long*)smem;
  const long long lo = threadIdx.x * RUN, hi = by_min(lo + RUN, N);
  long long mine = 0;
  for (long long f = lo; f < hi; ++f) mine += ((bool)x[f] != (bool)0);
  first[threadIdx.x] = mine;
  __syncthreads();
  if (threadIdx.x == 0) {
    long long total = 0;
    for (int k = 0; k < blockDim.x; ++k) { const long long c = first[k]; first[k] = total; total += c; }
    first[blockDim.x] = total;
  }
  __syncthreads();
  long long at = first[threadIdx.x];
  for (long long f = lo; f < hi; ++f) {
    if ((bool)x[f] != (bool)0) {
      long long rest = f;
      y[1ll * N + at] = rest % 2ll; rest /= 2ll;
      y[0ll * N + at] = rest % 2ll; rest /= 2ll;
      ++at;
    }
  }
  const long long total = first[blockDim.x];
  for (long long e = threadIdx.x; e < 2ll * (N - total); e += blockDim.x)
    y[(e / (N - total)) * N + total + e % (N - total)] = 0;
  if (threadIdx.x == 0) count[0] = total;
}
BY_KERNEL void __launch_bounds__(256) nonzero_k0(const bool* __restrict__ x, long long* __restrict__ y, long long* __restrict__ count) {
  nonzero_k0_body(x, y, count, by_this_block());
}

// golden: test_not_2d h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: not_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[bool out:bool]

// ===== not_k0 =====
BY_DEVICE void not_k0_body(const bool* __restrict__ in0, bool* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 12; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 12) break;
      int by_rem = lin;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*4 + (i1)] = (bool)((!in0[(i0)*4 + (i1)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) not_k0(const bool* __restrict__ in0, bool* __restrict__ out) {
  not_k0_body(in0, out, by_this_block());
}

// golden: test_onehot_negative_indices h100 fp32
// refused: shape

// golden: test_optional_get_element_optional_sequence h100 fp32
// refused: unsupported_op

// golden: test_optional_has_element_empty_no_input_name_optional_input h100 fp32
// 0 launches, 0 distinct kernels

// golden: test_or2d h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: or_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[bool bool out:bool]

// ===== or_k0 =====
BY_DEVICE void or_k0_body(const bool* __restrict__ in0, const bool* __restrict__ in1, bool* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 12; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 12) break;
      int by_rem = lin;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*4 + (i1)] = (bool)((in0[(i0)*4 + (i1)] || in1[(i0)*4 + (i1)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) or_k0(const bool* __restrict__ in0, const bool* __restrict__ in1, bool* __restrict__ out) {
  or_k0_body(in0, in1, out, by_this_block());
}

// golden: test_pow h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: pow_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float out:float]

// ===== pow_k0 =====
BY_DEVICE void pow_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0) | (unsigned long long)(in1)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_pow(by_e0[by_j], by_e1[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_pow(by_e0[by_j], by_e1[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_pow(by_e0[by_j], by_e1[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_pow(by_e0[by_j], by_e1[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_pow(in0[(i0)*20 + (i1)*5 + (i2)], in1[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) pow_k0(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out) {
  pow_k0_body(in0, in1, out, by_this_block());
}

// golden: test_prelu_broadcast h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: prelu_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float out:float]

// ===== prelu_k0 =====
BY_DEVICE void prelu_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 60; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 60) break;
      int by_rem = lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      const float t0 = in0[(i0)*20 + (i1)*5 + (i2)];
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(((t0 < 0.0f) ? (t0 * in1[(i2)]) : t0));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) prelu_k0(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out) {
  prelu_k0_body(in0, in1, out, by_this_block());
}

// golden: test_qlinearconv h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: qlinear_conv_k0 grid=[1, 1, 1] block=[256, 1, 1] shared=0 params=[unsigned char float unsigned char unsigned char float unsigned char float unsigned char out:unsigned char]

// ===== qlinear_conv_k0 =====
BY_DEVICE void qlinear_conv_k0_body(const unsigned char* __restrict__ in0, const float* __restrict__ in1, const unsigned char* __restrict__ in2, const unsigned char* __restrict__ in3, const float* __restrict__ in4, const unsigned char* __restrict__ in5, const float* __restrict__ in6, const unsigned char* __restrict__ in7, unsigned char* __restrict__ out, const by_block_index by_block) {
  const int tid = threadIdx.x;
  const int lane = tid % 1;
  const int row = (int)by_block.idx.x * 256 + tid / 1;
  const bool active = row < 49;
  int by_racc = 0;
  const int i0 = 0;
  const int i1 = 0;
  const int rowc = active ? row : 0;
  int by_rr = rowc;
  const int i3 = by_rr % 7; by_rr /= 7;
  const int i2 = by_rr;
  if (active) for (int k = lane; k < 1; k += 1) {
    const int r0 = k;
    const int v = ((((int)(in0[(i0)*49 + (i2)*7 + (i3)])) - ((int)(in2[0]))) * (((int)(in3[(i1)])) - ((int)(in5[0]))));
    by_racc = by_racc + v;
  }
  if (active && lane == 0) {
    const int acc = by_racc;
    out[(i2)*7 + (i3)] = (unsigned char)(((unsigned char)(by_min(by_max(by_round(((((double)(acc)) * ((in1[0] * in4[0]) / in6[0])) + ((double)(in7[0])))), 0.0), 255.0))));
  }
}
BY_KERNEL void __launch_bounds__(256) qlinear_conv_k0(const unsigned char* __restrict__ in0, const float* __restrict__ in1, const unsigned char* __restrict__ in2, const unsigned char* __restrict__ in3, const float* __restrict__ in4, const unsigned char* __restrict__ in5, const float* __restrict__ in6, const unsigned char* __restrict__ in7, unsigned char* __restrict__ out) {
  qlinear_conv_k0_body(in0, in1, in2, in3, in4, in5, in6, in7, out, by_this_block());
}

// golden: test_qlinearmatmul_2D_int8_float16 h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: qlinear_matmul_k0 grid=[1, 1, 1] block=[32, 1, 1] shared=192 params=[signed char by_half signed char signed char by_half signed char by_half signed char out:signed char]

// ===== qlinear_matmul_k0 =====
BY_DEVICE void qlinear_matmul_k0_body(const signed char* __restrict__ in0, const by_half* __restrict__ in1, const signed char* __restrict__ in2, const signed char* __restrict__ in3, const by_half* __restrict__ in4, const signed char* __restrict__ in5, const by_half* __restrict__ in6, const signed char* __restrict__ in7, signed char* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  int* const by_as = reinterpret_cast<int*>(by_smem);
  int* const by_bs = by_as + 16;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 1) * 8; by_blk /= 1;
  const int by_m0 = (by_blk % 1) * 4; by_blk /= 1;
  int by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  for (int kt = 0; kt < 1; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 16; e += 32) {
      const int kk = e % 4; const int rr = e / 4;
      const int gr = by_ar0 + rr; const int gk = kt * 4 + kk;
      int v = 0;
      if (gr < 2) {
        const int i0 = gr;
        const int r0 = gk;
        v = (((int)(in0[(i0)*4 + (r0)])) - ((int)(in2[0])));
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 32; e += 32) {
      const int rr = e % 8; const int kk = e / 8;
      const int gr = by_br0 + rr; const int gk = kt * 4 + kk;
      int v = 0;
      if (gr < 3) {
        const int i1 = gr;
        const int r0 = gk;
        v = (((int)(in3[(r0)*3 + (i1)])) - ((int)(in5[0])));
      }
      by_bs[kk * 8 + rr] = v;
    }
    __syncthreads();
    const int* const as = by_as + cur * 16;
    const int* const bs = by_bs + cur * 32;
    #pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
      int a[1], b[1];
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
    if (gm >= 2) continue;
    const int i0 = gm;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 8;
      if (gn >= 3) continue;
      const int i1 = gn;
      const int acc = by_acc[i][j];
      out[(i0)*3 + (i1)] = (signed char)(((signed char)(by_min(by_max(by_round(((((double)(acc)) * ((float)(((((float)in1[0]) * ((float)in4[0])) / ((float)in6[0]))))) + ((double)(in7[0])))), -128.0), 127.0))));
    }
  }
}
BY_KERNEL void qlinear_matmul_k0(const signed char* __restrict__ in0, const by_half* __restrict__ in1, const signed char* __restrict__ in2, const signed char* __restrict__ in3, const by_half* __restrict__ in4, const signed char* __restrict__ in5, const by_half* __restrict__ in6, const signed char* __restrict__ in7, signed char* __restrict__ out) {
  qlinear_matmul_k0_body(in0, in1, in2, in3, in4, in5, in6, in7, out, by_this_block());
}

// golden: test_quantizelinear h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: quantize_linear_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float unsigned char out:unsigned char]

// ===== quantize_linear_k0 =====
BY_DEVICE void quantize_linear_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const unsigned char* __restrict__ in2, unsigned char* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 6; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 6) break;
      const int i0 = lin;
      const double t0 = (((double)(by_round((in0[(i0)] / in1[0])))) + ((double)(in2[0])));
      out[(i0)] = (unsigned char)(((unsigned char)((by_isnan(t0) ? 0.0 : by_min(by_max(t0, 0.0), 255.0)))));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) quantize_linear_k0(const float* __restrict__ in0, const float* __restrict__ in1, const unsigned char* __restrict__ in2, unsigned char* __restrict__ out) {
  quantize_linear_k0_body(in0, in1, in2, out, by_this_block());
}

// golden: test_range_bfloat16_type_positive_delta h100 fp32
// refused: shape

// golden: test_reciprocal h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: reciprocal_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== reciprocal_k0 =====
BY_DEVICE void reciprocal_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_reciprocal(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_reciprocal(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_reciprocal(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_reciprocal(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_reciprocal(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) reciprocal_k0(const float* __restrict__ in0, float* __restrict__ out) {
  reciprocal_k0_body(in0, out, by_this_block());
}

// golden: test_reduce_l1_default_axes_keepdims_example h100 fp32
// refused: shape

// golden: test_reduce_l2_default_axes_keepdims_example h100 fp32
// refused: shape

// golden: test_reduce_log_sum_asc_axes h100 fp32
// refused: shape

// golden: test_reduce_log_sum_exp_default_axes_keepdims_example h100 fp32
// refused: shape

// golden: test_reduce_max_bool_inputs h100 fp32
// refused: shape

// golden: test_reduce_mean_default_axes_keepdims_example h100 fp32
// refused: shape

// golden: test_reduce_min_bool_inputs h100 fp32
// refused: shape

// golden: test_reduce_prod_default_axes_keepdims_example h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: reduceprod_k0 grid=[1, 1, 1] block=[256, 1, 1] shared=0 params=[float out:float]

// ===== reduceprod_k0 =====
BY_DEVICE void reduceprod_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const int tid = threadIdx.x;
  const int lane = tid % 1;
  const int row = (int)by_block.idx.x * 256 + tid / 1;
  const bool active = row < 1;
  float by_racc = 1;
  const int i0 = 0;
  const int i1 = 0;
  const int i2 = 0;
  const int rowc = active ? row : 0;
  if (active) for (int k = lane; k < 12; k += 1) {
    int by_rk = k;
    const int r2 = by_rk % 2; by_rk /= 2;
    const int r1 = by_rk % 2; by_rk /= 2;
    const int r0 = by_rk;
    const float v = in0[(r0)*4 + (r1)*2 + (r2)];
    by_racc = by_racc * v;
  }
  if (active && lane == 0) {
    const float acc = by_racc;
    out[0] = (float)(acc);
  }
}
BY_KERNEL void __launch_bounds__(256) reduceprod_k0(const float* __restrict__ in0, float* __restrict__ out) {
  reduceprod_k0_body(in0, out, by_this_block());
}

// golden: test_reduce_sum_default_axes_keepdims_example h100 fp32
// refused: shape

// golden: test_reduce_sum_square_default_axes_keepdims_example h100 fp32
// refused: shape

// golden: test_regex_full_match_basic h100 fp32
// refused: unsupported_op

// golden: test_relu h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: relu_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== relu_k0 =====
BY_DEVICE void relu_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_max(by_e0[by_j], 0.0f));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
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
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
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
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
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
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_max(in0[(i0)*20 + (i1)*5 + (i2)], 0.0f));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) relu_k0(const float* __restrict__ in0, float* __restrict__ out) {
  relu_k0_body(in0, out, by_this_block());
}

// golden: test_resize_downsample_scales_cubic h100 fp32
// refused: shape

// golden: test_reversesequence_batch h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: reverse_sequence_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float long long out:float]

// ===== reverse_sequence_k0 =====
BY_DEVICE void reverse_sequence_k0_body(const float* __restrict__ in0, const long long* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 16; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 16) break;
      int by_rem = lin;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      const long long t0 = in1[(i0)];
      out[(i0)*4 + (i1)] = (float)(in0[(i0)*4 + (((i1 < t0) ? ((t0 - (1ll)) - i1) : i1))]);
    }
  }
}
BY_KERNEL void __launch_bounds__(512) reverse_sequence_k0(const float* __restrict__ in0, const long long* __restrict__ in1, float* __restrict__ out) {
  reverse_sequence_k0_body(in0, in1, out, by_this_block());
}

// golden: test_rms_normalization_2d_axis0 h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: rmsnorm_regrows_k0 grid=[1, 1, 1] block=[32, 1, 1] shared=0 params=[float float out:float]

// ===== rmsnorm_regrows_k0 =====
BY_DEVICE void rmsnorm_regrows_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  const int by_row = (int)by_block.idx.x * 1 + (threadIdx.x >> 5);
  if (by_row >= 1) return;  // the whole warp leaves together
  const int by_lane = threadIdx.x & 31;
  float by_st0;
  {
    float acc = 0.0f;
    #pragma unroll
    for (int by_s = 0; by_s < 1; ++by_s) {
      const int by_j = (by_s) * 32 + by_lane;
      (void)by_j;
      if (by_j < 12) {
        const float t0 = in0[((by_j / (4ll)))*4 + ((by_j % (4ll)))];
        acc = acc + ((t0 * t0));
      }
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    by_st0 = (float)(acc);
  }
  float by_o[1];
  #pragma unroll
  for (int by_s = 0; by_s < 1; ++by_s) {
    const int by_j = (by_s) * 32 + by_lane;
    (void)by_j;
    if (by_j < 12) {
      const int t0 = ((by_j / (4ll)) % (3ll));
      const int t1 = (by_j % (4ll));
      by_o[by_s] = (float)(((in0[(t0)*4 + (t1)] * (1.0f / by_sqrt(((by_st0 / 12.0f) + 1e-05f)))) * in1[(t0)*4 + (t1)]));
    }
  }
  #pragma unroll
  for (int by_k = 0; by_k < 1; ++by_k) {
    const int by_j0 = by_k * 32 + by_lane * 1;
    if (by_j0 < 12) {
      #pragma unroll
      for (int by_u = 0; by_u < 1; ++by_u) {
        const int by_j = by_j0 + by_u;
        int by_crem = by_j;
        const int by_i1 = by_crem % 4; by_crem /= 4;
        const int by_i0 = by_crem;
        (void)by_crem;
        out[by_i0 * 4 + by_i1 * 1] = by_o[by_k * 1 + by_u];
      }
    }
  }
}
BY_KERNEL void __launch_bounds__(32) rmsnorm_regrows_k0(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out) {
  rmsnorm_regrows_k0_body(in0, in1, out, by_this_block());
}

// golden: test_rnn_seq_length h100 fp32
// 2 launches, 2 distinct kernels
// launch 0: rnn_xw_k0 grid=[2, 1, 1] block=[32, 1, 1] shared=192 params=[float float float out:float]
// launch 1: rnn_recurrence_k0 grid=[3, 1, 1] block=[64, 1, 1] shared=40 params=[float float out:float]

// ===== rnn_xw_k0 =====
BY_DEVICE void rnn_xw_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  float* const by_as = reinterpret_cast<float*>(by_smem);
  float* const by_bs = by_as + 16;
  const int tid = threadIdx.x;
  const int tx = tid % 8;
  const int ty = tid / 8;
  int by_blk = by_block.idx.x;
  const int by_n0 = (by_blk % 1) * 8; by_blk /= 1;
  const int by_m0 = (by_blk % 2) * 4; by_blk /= 2;
  const int i0 = 0;
  float by_acc[1][1];
  #pragma unroll
  for (int i = 0; i < 1; ++i)
    #pragma unroll
    for (int j = 0; j < 1; ++j) by_acc[i][j] = 0;
  const int by_ar0 = by_m0, by_br0 = by_n0;
  for (int kt = 0; kt < 1; ++kt) {
    const int cur = 0;
    for (int e = tid; e < 16; e += 32) {
      const int kk = e % 4; const int rr = e / 4;
      const int gr = by_ar0 + rr; const int gk = kt * 4 + kk;
      float v = 0;
      if (gr < 6 && gk < 3) {
        int by_rm = gr;
        const int i2 = by_rm % 3; by_rm /= 3;
        const int i1 = by_rm;
        const int r0 = gk;
        v = in0[(i1)*9 + (i2)*3 + (r0)];
      }
      by_as[kk * 4 + rr] = v;
    }
    for (int e = tid; e < 32; e += 32) {
      const int kk = e % 4; const int rr = e / 4;
      const int gr = by_br0 + rr; const int gk = kt * 4 + kk;
      float v = 0;
      if (gr < 5 && gk < 3) {
        const int i3 = gr;
        const int r0 = gk;
        v = in1[(i0)*15 + (i3)*3 + (r0)];
      }
      by_bs[kk * 8 + rr] = v;
    }
    __syncthreads();
    const float* const as = by_as + cur * 16;
    const float* const bs = by_bs + cur * 32;
    #pragma unroll
    for (int kk = 0; kk < 4; ++kk) {
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
    if (gm >= 6) continue;
    int by_em = gm;
    const int i2 = by_em % 3; by_em /= 3;
    const int i1 = by_em;
    #pragma unroll
    for (int j = 0; j < 1; ++j) {
      const int gn = by_n0 + tx + (j) * 8;
      if (gn >= 5) continue;
      const int i3 = gn;
      const float acc = by_acc[i][j];
      out[(i1)*15 + (i2)*5 + (i3)] = (float)(((acc + in2[(i0)*10 + (i3)]) + in2[(i0)*10 + ((i3 + (5ll)))]));
    }
  }
}
BY_KERNEL void rnn_xw_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  rnn_xw_k0_body(in0, in1, in2, out, by_this_block());
}

// ===== rnn_recurrence_k0 =====
BY_DEVICE void rnn_recurrence_k0_body(const float* __restrict__ xw, const float* __restrict__ R, float* __restrict__ y_h, const by_block_index by_block) {
  constexpr int SEQ = 2, BATCH = 3, DIRS = 1, HID = 5, GH = 5;
  BY_SHARED_BUFFER(smem);
  float* h = (float*)smem;
  float* gates = h + HID;
  const int b = by_block.idx.x;
  const int d = by_block.idx.y;
  const int tid = threadIdx.x;
  const int lane = tid & 31;
  const int warp = tid >> 5;
  const float* Rd = R + (long long)d * GH * HID;
  const int len = SEQ;
  const bool rev = false;
  for (int j = tid; j < HID; j += 64) {
    h[j] = 0.0f;
  }
  __syncthreads();
  for (int s = 0; s < len; ++s) {
    const int t = rev ? len - 1 - s : s;
    const float* x = xw + (((long long)d * SEQ + t) * BATCH + b) * GH;
    for (int row = 0 + warp; row < 5; row += 2) {
      const float* rr = Rd + (long long)row * HID;
      float acc = 0.0f;
      for (int k = lane; k < HID; k += 32) acc += (float)rr[k] * h[k];
      for (int off = 16; off > 0; off >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, off);
      if (lane == 0) gates[row] = acc;
    }
    __syncthreads();
    for (int j = tid; j < HID; j += 64) {
      const float hp = (x[j] + gates[0 * HID + j]);
      const float hn = by_tanh(hp);
      h[j] = hn;
    }
    __syncthreads();
  }
  for (int j = tid; j < HID; j += 64) {
    y_h[((long long)d * BATCH + b) * HID + j] = (float)(h[j]);
  }
}
BY_KERNEL void __launch_bounds__(64) rnn_recurrence_k0(const float* __restrict__ xw, const float* __restrict__ R, float* __restrict__ y_h) {
  rnn_recurrence_k0_body(xw, R, y_h, by_this_block());
}

// golden: test_roialign_aligned_false h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: roi_align_k0 grid=[1, 1, 1] block=[128, 1, 1] shared=0 params=[float float long long out:float]

// ===== roi_align_k0 =====
BY_DEVICE void roi_align_k0_body(const float* __restrict__ X, const float* __restrict__ rois,
    const long long* __restrict__ bidx, float* __restrict__ Y, const by_block_index by_block) {
  for (long long p = (long long)by_block.idx.x * blockDim.x + threadIdx.x; p < 75ll; p += (long long)by_block.grid.x * blockDim.x) {
    const long long pw = p % 5ll, ph = (p / 5ll) % 5ll;
    const long long c = (p / 25ll) % 1ll, r = p / 25ll;
    const float off = 0.0f, scale = 1.0f;
    const float x1 = (float)rois[r * 4 + 0] * scale - off, y1 = (float)rois[r * 4 + 1] * scale - off;
    const float x2 = (float)rois[r * 4 + 2] * scale - off, y2 = (float)rois[r * 4 + 3] * scale - off;
    float rw = x2 - x1, rh = y2 - y1;
    rw = by_max(rw, 1.0f); rh = by_max(rh, 1.0f);
    const float bh = rh / 5.0f, bw = rw / 5.0f;
    const long long gh = 2;
    const long long gw = 2;
    const long long count = gh * gw > 1 ? gh * gw : 1;
    const float* plane = X + ((long long)bidx[r] * 1ll + c) * 100ll;
    float acc = 0; bool have = false;
    for (long long iy = 0; iy < gh; ++iy) {
      const float yy = y1 + (float)ph * bh + (float)(iy + 0.5) * bh / (float)gh;
      for (long long ix = 0; ix < gw; ++ix) {
        const float xx = x1 + (float)pw * bw + (float)(ix + 0.5) * bw / (float)gw;
        float w1 = 0, w2 = 0, w3 = 0, w4 = 0, v1 = 0, v2 = 0, v3 = 0, v4 = 0;
        if (!(yy < -1 || yy > 10 || xx < -1 || xx > 10)) {
          float yv = yy > 0 ? yy : 0, xv = xx > 0 ? xx : 0;
          long long yl = (long long)yv, xl = (long long)xv, yh, xh;
          if (yl >= 9) { yl = yh = 9; yv = (float)yl; } else { yh = yl + 1; }
          if (xl >= 9) { xl = xh = 9; xv = (float)xl; } else { xh = xl + 1; }
          const float ly = yv - (float)yl, lx = xv - (float)xl, hy = 1 - ly, hx = 1 - lx;
          w1 = hy * hx; w2 = hy * lx; w3 = ly * hx; w4 = ly * lx;
          v1 = (float)plane[yl * 10 + xl]; v2 = (float)plane[yl * 10 + xh];
          v3 = (float)plane[yh * 10 + xl]; v4 = (float)plane[yh * 10 + xh];
        }
        acc += ((w1 * v1 + w2 * v2) + w3 * v3) + w4 * v4;
      }
    }
    Y[p] = (float)(acc / (float)count);
  }
}
BY_KERNEL void roi_align_k0(const float* __restrict__ X, const float* __restrict__ rois,
    const long long* __restrict__ bidx, float* __restrict__ Y) {
  roi_align_k0_body(X, rois, bidx, Y, by_this_block());
}

// golden: test_rotary_embedding h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: rotary_embedding_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float float long long out:float]

// ===== rotary_embedding_k0 =====
BY_DEVICE void rotary_embedding_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const long long* __restrict__ in3, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 192; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 192) break;
      int by_rem = lin;
      const int i3 = by_rem % 8; by_rem /= 8;
      const int i2 = by_rem % 3; by_rem /= 3;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*96 + (i1)*24 + (i2)*8 + (i3)] = (float)(((i3 < (4ll)) ? ((in0[(i0)*96 + (i1)*24 + (i2)*8 + (i3)] * in1[(in3[(i0)*3 + (i2)])*4 + (i3)]) - (in0[(i0)*96 + (i1)*24 + (i2)*8 + ((i3 + (4ll)))] * in2[(in3[(i0)*3 + (i2)])*4 + (i3)])) : ((in0[(i0)*96 + (i1)*24 + (i2)*8 + ((i3 - (4ll)))] * in2[(in3[(i0)*3 + (i2)])*4 + ((i3 - (4ll)))]) + (in0[(i0)*96 + (i1)*24 + (i2)*8 + (i3)] * in1[(in3[(i0)*3 + (i2)])*4 + ((i3 - (4ll)))]))));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) rotary_embedding_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, const long long* __restrict__ in3, float* __restrict__ out) {
  rotary_embedding_k0_body(in0, in1, in2, in3, out, by_this_block());
}

// golden: test_round h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: round_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== round_k0 =====
BY_DEVICE void round_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 3; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        const int i0 = by_lin;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_round(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 3) {
          const int by_lin = by_q * 4;
          const int i0 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_round(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 3) {
          const int by_lin = by_q * 4;
          const int i0 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_round(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 3) {
          const int by_lin = by_q * 4;
          const int i0 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_round(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
    for (int by_lin = 12 + by_tid; by_lin < 15; by_lin += by_step) {
      const int i0 = by_lin;
      out[(i0)] = (float)(by_round(in0[(i0)]));
    }
  } else {
    for (int by_lin = by_tid; by_lin < 15; by_lin += by_step) {
      const int i0 = by_lin;
      out[(i0)] = (float)(by_round(in0[(i0)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) round_k0(const float* __restrict__ in0, float* __restrict__ out) {
  round_k0_body(in0, out, by_this_block());
}

// golden: test_scan9_multi_state h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: device_scan_k0 grid=[2, 1, 1] block=[512, 1, 1] shared=0 cooperative params=[out:float float out:float float out:float float out:float out:float out:float out:float out:float]

// ===== device_scan_k0 =====
BY_DEVICE_CALLED void add_d4ea9ca25a96491f_body(const float*  in0, const float*  in1, float*  out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 2; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 2) break;
      const int i0 = lin;
      out[(i0)] = (float)((in0[(i0)] + in1[(i0)]));
    }
  }
}
BY_DEVICE_CALLED void mul_d7c9fbbad4fcd899_body(const float*  in0, const float*  in1, float*  out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 2; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 2) break;
      const int i0 = lin;
      out[(i0)] = (float)((in0[(i0)] * in1[(i0)]));
    }
  }
}
BY_DEVICE_CALLED void colaunch_e28eba2055df1728_body(const float*  m0_in0, const float*  m0_in1, float*  m0_out, const float*  m1_in0, const float*  m1_in1, float*  m1_out, const by_block_index by_block) {
  const unsigned int by_b = by_block.idx.x;
  if (by_b < 1u) add_d4ea9ca25a96491f_body(m0_in0, m0_in1, m0_out, by_block_at(by_b - 0u, dim3(1, 1, 1)));
  else if (by_b < 2u) mul_d7c9fbbad4fcd899_body(m1_in0, m1_in1, m1_out, by_block_at(by_b - 1u, dim3(1, 1, 1)));
}
BY_DEVICE void device_scan_k0_body(float* p0, const float* p1, float* p2, const float* p3, float* p4, const float* p5, float* p6, float* p7, float* p8, float* p9, float* p10, const by_block_index by_block) {
  const unsigned int by_b = by_block.idx.x;
  const unsigned int by_g = by_block.grid.x;
  const unsigned int by_t = threadIdx.x;
  const unsigned long long by_tid = (unsigned long long)by_b * blockDim.x + threadIdx.x;
  const unsigned long long by_nthreads = (unsigned long long)by_g * blockDim.x;
  (void)by_t; (void)by_tid; (void)by_nthreads;
  {  // Scan Scan_0
    for (unsigned long long by_i = by_tid; by_i < 2ull; by_i += by_nthreads) p0[by_i] = p1[by_i];
    for (unsigned long long by_i = by_tid; by_i < 2ull; by_i += by_nthreads) p2[by_i] = p3[by_i];
    for (unsigned long long by_i = by_tid; by_i < 2ull; by_i += by_nthreads) p4[by_i] = p5[(by_i / 2ull) * 6ull + (0) * 2ll + by_i % 2ull];
    by_grid_sync();
    for (long long by_it1 = 0; by_it1 < 3ll; ++by_it1) {
      for (unsigned int by_v = by_b; by_v < 2u; by_v += by_g) colaunch_e28eba2055df1728_body(p0, p4, p6, p2, p4, p7, by_block_at(by_v, dim3(2, 1, 1)));
      by_grid_sync();
      for (unsigned long long by_i = by_tid; by_i < 2ull; by_i += by_nthreads) p0[by_i] = p6[by_i];
      for (unsigned long long by_i = by_tid; by_i < 2ull; by_i += by_nthreads) p2[by_i] = p7[by_i];
      for (unsigned long long by_i = by_tid; by_i < 2ull; by_i += by_nthreads) p8[(by_i / 2ull) * 6ull + by_it1 * 2ll + by_i % 2ull] = p6[by_i];
      for (unsigned long long by_i = by_tid; by_i < 2ull; by_i += by_nthreads) p4[by_i] = p5[by_it1 + 1 < 3ll ? (by_i / 2ull) * 6ull + (by_it1 + 1) * 2ll + by_i % 2ull : 0];
      by_grid_sync();
    }
    for (unsigned long long by_i = by_tid; by_i < 2ull; by_i += by_nthreads) p9[by_i] = p0[by_i];
    for (unsigned long long by_i = by_tid; by_i < 2ull; by_i += by_nthreads) p10[by_i] = p2[by_i];
    by_grid_sync();
  }
}
BY_KERNEL void __launch_bounds__(512, 1) device_scan_k0(float* p0, const float* p1, float* p2, const float* p3, float* p4, const float* p5, float* p6, float* p7, float* p8, float* p9, float* p10) {
  device_scan_k0_body(p0, p1, p2, p3, p4, p5, p6, p7, p8, p9, p10, by_this_block());
}

// golden: test_scatter_elements_with_axis h100 fp32
// 2 launches, 2 distinct kernels
// launch 0: scatter_copy_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]
// launch 1: scatter_elements_update_k0 grid=[1, 1, 1] block=[128, 1, 1] shared=0 params=[long long float out:float]

// ===== scatter_copy_k0 =====
BY_DEVICE void scatter_copy_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  const int i0 = 0;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 1; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        const int i1 = by_lin;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*5 + (i1)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_e0[by_j]);
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 1) {
          const int by_lin = by_q * 4;
          const int i1 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*5 + (i1)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_e0[by_j]);
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 1) {
          const int by_lin = by_q * 4;
          const int i1 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*5 + (i1)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_e0[by_j]);
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 1) {
          const int by_lin = by_q * 4;
          const int i1 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*5 + (i1)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_e0[by_j]);
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
    for (int by_lin = 4 + by_tid; by_lin < 5; by_lin += by_step) {
      const int i1 = by_lin;
      out[(i1)] = (float)(in0[(i0)*5 + (i1)]);
    }
  } else {
    for (int by_lin = by_tid; by_lin < 5; by_lin += by_step) {
      const int i1 = by_lin;
      out[(i1)] = (float)(in0[(i0)*5 + (i1)]);
    }
  }
}
BY_KERNEL void __launch_bounds__(512) scatter_copy_k0(const float* __restrict__ in0, float* __restrict__ out) {
  scatter_copy_k0_body(in0, out, by_this_block());
}

// ===== scatter_elements_update_k0 =====
BY_DEVICE void scatter_elements_update_k0_body(const long long* __restrict__ idx, const float* __restrict__ upd, float* __restrict__ out, const by_block_index by_block) {
  for (long long p = (long long)by_block.idx.x * blockDim.x + threadIdx.x; p < 1ll; p += (long long)by_block.grid.x * blockDim.x) {
    long long rem = p, ioff = 0, xoff = 0;
    const long long c0 = rem % 1ll; rem /= 1ll; ioff += c0 * 2ll; xoff += c0 * 5ll;
    for (long long t = 0; t < 2ll; ++t) {
      const long long q = ioff + t * 1ll;
      long long v = (long long)idx[q]; if (v < 0) v += 5ll;
      out[xoff + v * 1ll] = (float)(((float)upd[q]));
    }
  }
}
BY_KERNEL void scatter_elements_update_k0(const long long* __restrict__ idx, const float* __restrict__ upd, float* __restrict__ out) {
  scatter_elements_update_k0_body(idx, upd, out, by_this_block());
}

// golden: test_scatter_with_axis h100 fp32
// 2 launches, 2 distinct kernels
// launch 0: scatter_copy_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]
// launch 1: scatter_elements_update_k0 grid=[1, 1, 1] block=[128, 1, 1] shared=0 params=[long long float out:float]

// ===== scatter_copy_k0 =====
BY_DEVICE void scatter_copy_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  const int i0 = 0;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 1; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        const int i1 = by_lin;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*5 + (i1)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_e0[by_j]);
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 1) {
          const int by_lin = by_q * 4;
          const int i1 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*5 + (i1)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_e0[by_j]);
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 1) {
          const int by_lin = by_q * 4;
          const int i1 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*5 + (i1)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_e0[by_j]);
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 1) {
          const int by_lin = by_q * 4;
          const int i1 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*5 + (i1)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_e0[by_j]);
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
    for (int by_lin = 4 + by_tid; by_lin < 5; by_lin += by_step) {
      const int i1 = by_lin;
      out[(i1)] = (float)(in0[(i0)*5 + (i1)]);
    }
  } else {
    for (int by_lin = by_tid; by_lin < 5; by_lin += by_step) {
      const int i1 = by_lin;
      out[(i1)] = (float)(in0[(i0)*5 + (i1)]);
    }
  }
}
BY_KERNEL void __launch_bounds__(512) scatter_copy_k0(const float* __restrict__ in0, float* __restrict__ out) {
  scatter_copy_k0_body(in0, out, by_this_block());
}

// ===== scatter_elements_update_k0 =====
BY_DEVICE void scatter_elements_update_k0_body(const long long* __restrict__ idx, const float* __restrict__ upd, float* __restrict__ out, const by_block_index by_block) {
  for (long long p = (long long)by_block.idx.x * blockDim.x + threadIdx.x; p < 1ll; p += (long long)by_block.grid.x * blockDim.x) {
    long long rem = p, ioff = 0, xoff = 0;
    const long long c0 = rem % 1ll; rem /= 1ll; ioff += c0 * 2ll; xoff += c0 * 5ll;
    for (long long t = 0; t < 2ll; ++t) {
      const long long q = ioff + t * 1ll;
      long long v = (long long)idx[q]; if (v < 0) v += 5ll;
      out[xoff + v * 1ll] = (float)(((float)upd[q]));
    }
  }
}
BY_KERNEL void scatter_elements_update_k0(const long long* __restrict__ idx, const float* __restrict__ upd, float* __restrict__ out) {
  scatter_elements_update_k0_body(idx, upd, out, by_this_block());
}

// golden: test_scatternd h100 fp32
// 2 launches, 2 distinct kernels
// launch 0: scatter_copy_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]
// launch 1: scatter_nd_update_k0 grid=[1, 1, 1] block=[128, 1, 1] shared=0 params=[long long float out:float]

// ===== scatter_copy_k0 =====
BY_DEVICE void scatter_copy_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 16; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 4; by_rem /= 4;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*16 + (i1)*4 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_e0[by_j]);
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 16) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 4; by_rem /= 4;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*16 + (i1)*4 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_e0[by_j]);
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 16) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 4; by_rem /= 4;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*16 + (i1)*4 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_e0[by_j]);
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 16) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 4; by_rem /= 4;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*16 + (i1)*4 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_e0[by_j]);
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 64; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 4; by_rem /= 4;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*16 + (i1)*4 + (i2)] = (float)(in0[(i0)*16 + (i1)*4 + (i2)]);
    }
  }
}
BY_KERNEL void __launch_bounds__(512) scatter_copy_k0(const float* __restrict__ in0, float* __restrict__ out) {
  scatter_copy_k0_body(in0, out, by_this_block());
}

// ===== scatter_nd_update_k0 =====
BY_DEVICE void scatter_nd_update_k0_body(const long long* __restrict__ idx, const float* __restrict__ upd, float* __restrict__ out, const by_block_index by_block) {
  for (long long p = (long long)by_block.idx.x * blockDim.x + threadIdx.x; p < 16ll; p += (long long)by_block.grid.x * blockDim.x) {
    for (long long u = 0; u < 2ll; ++u) {
      long long off = 0;
      { long long v = (long long)idx[u * 1ll + 0ll]; if (v < 0) v += 4ll; off = off * 4ll + v; }
      out[off * 16ll + p] = (float)(((float)upd[u * 16ll + p]));
    }
  }
}
BY_KERNEL void scatter_nd_update_k0(const long long* __restrict__ idx, const float* __restrict__ upd, float* __restrict__ out) {
  scatter_nd_update_k0_body(idx, upd, out, by_this_block());
}

// golden: test_sce_NCd1_mean_weight_negative_ii h100 fp32
// 3 launches, 3 distinct kernels
// launch 0: sce_logsumexp_regrows_k0 grid=[18, 1, 1] block=[32, 1, 1] shared=0 params=[float out:float]
// launch 1: sce_loss_weight_sum_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=2048 params=[float long long float float out:float]
// launch 2: sce_loss_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=2048 params=[float long long float float float out:float]

// ===== sce_logsumexp_regrows_k0 =====
BY_DEVICE void sce_logsumexp_regrows_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const int by_row = (int)by_block.idx.x * 1 + (threadIdx.x >> 5);
  if (by_row >= 18) return;  // the whole warp leaves together
  const int by_lane = threadIdx.x & 31;
  int by_rrem = by_row;
  const int by_r1 = by_rrem % 6; by_rrem /= 6;
  const int by_r0 = by_rrem;
  (void)by_rrem;
  float by_c0[1];
  #pragma unroll
  for (int by_k = 0; by_k < 1; ++by_k) {
    const int by_j0 = by_k * 32 + by_lane * 1;
    if (by_j0 < 5) {
      #pragma unroll
      for (int by_u = 0; by_u < 1; ++by_u) {
        const int by_j = by_j0 + by_u;
        by_c0[by_k * 1 + by_u] = in0[(by_r0)*30 + (by_j)*6 + (by_r1)];
      }
    }
  }
  float by_st0;
  {
    float acc = (-by_inf_f());
    #pragma unroll
    for (int by_s = 0; by_s < 1; ++by_s) {
      const int by_j = (by_s) * 32 + by_lane;
      (void)by_j;
      if (by_j < 5) {
        acc = by_max(acc, (by_c0[(by_s)]));
      }
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = by_max(acc, o);
    }
    by_st0 = (float)(acc);
  }
  float by_out;
  {
    float acc = 0.0f;
    #pragma unroll
    for (int by_s = 0; by_s < 1; ++by_s) {
      const int by_j = (by_s) * 32 + by_lane;
      (void)by_j;
      if (by_j < 5) {
        acc = acc + (by_exp((by_c0[(by_s)] - by_st0)));
      }
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    by_out = (float)((by_log(acc) + by_st0));
  }
  if (by_lane == 0) out[by_r0 * 6 + by_r1 * 1] = (float)(by_out);
}
BY_KERNEL void __launch_bounds__(32) sce_logsumexp_regrows_k0(const float* __restrict__ in0, float* __restrict__ out) {
  sce_logsumexp_regrows_k0_body(in0, out, by_this_block());
}

// ===== sce_loss_weight_sum_k0 =====
BY_DEVICE void sce_loss_weight_sum_k0_body(const float* __restrict__ in0, const long long* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  const int tid = threadIdx.x;
  const int by_r = tid % 32, by_g = tid / 32;
  const int row = (int)by_block.idx.x * 32 + by_r;
  const bool active = row < 1;
  float by_racc = 0;
  const int rowc = active ? row : 0;
  if (active) {
    #pragma unroll 4
    for (int k = by_g; k < 18; k += 16) {
      int by_rk = k;
      const int r1 = by_rk % 6; by_rk /= 6;
      const int r0 = by_rk;
      const long long t0 = in1[(r0)*6 + (r1)];
      const float v = ((t0 != (-1ll)) ? in3[(by_min((long long)(by_max((long long)(t0), (long long)((0ll)))), (long long)((4ll))))] : 0.0f);
      by_racc = by_racc + v;
    }
  }
  float* const part = reinterpret_cast<float*>(by_smem);
  part[tid] = by_racc;
  __syncthreads();
  if (by_g != 0 || !active) return;
  for (int g = 1; g < 16; ++g) {
    const float other = part[g * 32 + by_r];
    by_racc = by_racc + other;
  }
  const float acc = by_racc;
  out[0] = (float)(acc);
}
BY_KERNEL void __launch_bounds__(512) sce_loss_weight_sum_k0(const float* __restrict__ in0, const long long* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, float* __restrict__ out) {
  sce_loss_weight_sum_k0_body(in0, in1, in2, in3, out, by_this_block());
}

// ===== sce_loss_k0 =====
BY_DEVICE void sce_loss_k0_body(const float* __restrict__ in0, const long long* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem);
  const int tid = threadIdx.x;
  const int by_r = tid % 32, by_g = tid / 32;
  const int row = (int)by_block.idx.x * 32 + by_r;
  const bool active = row < 1;
  float by_racc = 0;
  const int rowc = active ? row : 0;
  if (active) {
    #pragma unroll 4
    for (int k = by_g; k < 18; k += 16) {
      int by_rk = k;
      const int r1 = by_rk % 6; by_rk /= 6;
      const int r0 = by_rk;
      const long long t0 = in1[(r0)*6 + (r1)];
      const float v = ((t0 != (-1ll)) ? by_neg(((in0[(r0)*30 + (by_min((long long)(by_max((long long)(t0), (long long)((0ll)))), (long long)((4ll))))*6 + (r1)] - in2[(r0)*6 + (r1)]) * in3[(by_min((long long)(by_max((long long)(t0), (long long)((0ll)))), (long long)((4ll))))])) : 0.0f);
      by_racc = by_racc + v;
    }
  }
  float* const part = reinterpret_cast<float*>(by_smem);
  part[tid] = by_racc;
  __syncthreads();
  if (by_g != 0 || !active) return;
  for (int g = 1; g < 16; ++g) {
    const float other = part[g * 32 + by_r];
    by_racc = by_racc + other;
  }
  const float acc = by_racc;
  out[0] = (float)((acc / in4[0]));
}
BY_KERNEL void __launch_bounds__(512) sce_loss_k0(const float* __restrict__ in0, const long long* __restrict__ in1, const float* __restrict__ in2, const float* __restrict__ in3, const float* __restrict__ in4, float* __restrict__ out) {
  sce_loss_k0_body(in0, in1, in2, in3, in4, out, by_this_block());
}

// golden: test_selu h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: selu_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== selu_k0 =====
BY_DEVICE void selu_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          const float t0 = by_e0[by_j];
          by_oe[by_j] = (float)(((t0 > 0.0f) ? (t0 * 3.0f) : (by_expm1(t0) * 6.0f)));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)(((t0 > 0.0f) ? (t0 * 3.0f) : (by_expm1(t0) * 6.0f)));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)(((t0 > 0.0f) ? (t0 * 3.0f) : (by_expm1(t0) * 6.0f)));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)(((t0 > 0.0f) ? (t0 * 3.0f) : (by_expm1(t0) * 6.0f)));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      const float t0 = in0[(i0)*20 + (i1)*5 + (i2)];
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(((t0 > 0.0f) ? (t0 * 3.0f) : (by_expm1(t0) * 6.0f)));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) selu_k0(const float* __restrict__ in0, float* __restrict__ out) {
  selu_k0_body(in0, out, by_this_block());
}

// golden: test_sequence_insert_at_back h100 fp32
// refused: unsupported_op

// golden: test_sequence_map_add_1_sequence_1_tensor h100 fp32
// refused: unsupported_op

// golden: test_shape h100 fp32
// 0 launches, 0 distinct kernels

// golden: test_shrink_hard h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: shrink_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== shrink_k0 =====
BY_DEVICE void shrink_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 1; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        const int i0 = by_lin;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          const float t0 = by_e0[by_j];
          by_oe[by_j] = (float)(((t0 < -1.5f) ? t0 : ((t0 > 1.5f) ? t0 : 0.0f)));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 1) {
          const int by_lin = by_q * 4;
          const int i0 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)(((t0 < -1.5f) ? t0 : ((t0 > 1.5f) ? t0 : 0.0f)));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 1) {
          const int by_lin = by_q * 4;
          const int i0 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)(((t0 < -1.5f) ? t0 : ((t0 > 1.5f) ? t0 : 0.0f)));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 1) {
          const int by_lin = by_q * 4;
          const int i0 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)(((t0 < -1.5f) ? t0 : ((t0 > 1.5f) ? t0 : 0.0f)));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
    for (int by_lin = 4 + by_tid; by_lin < 5; by_lin += by_step) {
      const int i0 = by_lin;
      const float t0 = in0[(i0)];
      out[(i0)] = (float)(((t0 < -1.5f) ? t0 : ((t0 > 1.5f) ? t0 : 0.0f)));
    }
  } else {
    for (int by_lin = by_tid; by_lin < 5; by_lin += by_step) {
      const int i0 = by_lin;
      const float t0 = in0[(i0)];
      out[(i0)] = (float)(((t0 < -1.5f) ? t0 : ((t0 > 1.5f) ? t0 : 0.0f)));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) shrink_k0(const float* __restrict__ in0, float* __restrict__ out) {
  shrink_k0_body(in0, out, by_this_block());
}

// golden: test_sigmoid h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: sigmoid_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== sigmoid_k0 =====
BY_DEVICE void sigmoid_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_sigmoid(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_sigmoid(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_sigmoid(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_sigmoid(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_sigmoid(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) sigmoid_k0(const float* __restrict__ in0, float* __restrict__ out) {
  sigmoid_k0_body(in0, out, by_this_block());
}

// golden: test_sign h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: sign_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== sign_k0 =====
BY_DEVICE void sign_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 2; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        const int i0 = by_lin;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          const float t0 = by_e0[by_j];
          by_oe[by_j] = (float)((by_isnan(t0) ? t0 : by_sign(t0)));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 2) {
          const int by_lin = by_q * 4;
          const int i0 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)((by_isnan(t0) ? t0 : by_sign(t0)));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 2) {
          const int by_lin = by_q * 4;
          const int i0 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)((by_isnan(t0) ? t0 : by_sign(t0)));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 2) {
          const int by_lin = by_q * 4;
          const int i0 = by_lin;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)((by_isnan(t0) ? t0 : by_sign(t0)));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
    for (int by_lin = 8 + by_tid; by_lin < 11; by_lin += by_step) {
      const int i0 = by_lin;
      const float t0 = in0[(i0)];
      out[(i0)] = (float)((by_isnan(t0) ? t0 : by_sign(t0)));
    }
  } else {
    for (int by_lin = by_tid; by_lin < 11; by_lin += by_step) {
      const int i0 = by_lin;
      const float t0 = in0[(i0)];
      out[(i0)] = (float)((by_isnan(t0) ? t0 : by_sign(t0)));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) sign_k0(const float* __restrict__ in0, float* __restrict__ out) {
  sign_k0_body(in0, out, by_this_block());
}

// golden: test_sin h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: sin_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== sin_k0 =====
BY_DEVICE void sin_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_sin(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_sin(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_sin(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_sin(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_sin(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) sin_k0(const float* __restrict__ in0, float* __restrict__ out) {
  sin_k0_body(in0, out, by_this_block());
}

// golden: test_sinh h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: sinh_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== sinh_k0 =====
BY_DEVICE void sinh_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_sinh(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_sinh(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_sinh(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_sinh(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_sinh(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) sinh_k0(const float* __restrict__ in0, float* __restrict__ out) {
  sinh_k0_body(in0, out, by_this_block());
}

// golden: test_size h100 fp32
// 0 launches, 0 distinct kernels

// golden: test_slice h100 fp32
// refused: shape

// golden: test_softmax_axis_0 h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: softmax_regrows_k0 grid=[20, 1, 1] block=[32, 1, 1] shared=0 params=[float out:float]

// ===== softmax_regrows_k0 =====
BY_DEVICE void softmax_regrows_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const int by_row = (int)by_block.idx.x * 1 + (threadIdx.x >> 5);
  if (by_row >= 20) return;  // the whole warp leaves together
  const int by_lane = threadIdx.x & 31;
  int by_rrem = by_row;
  const int by_r1 = by_rrem % 5; by_rrem /= 5;
  const int by_r0 = by_rrem;
  (void)by_rrem;
  float by_c0[1];
  #pragma unroll
  for (int by_k = 0; by_k < 1; ++by_k) {
    const int by_j0 = by_k * 32 + by_lane * 1;
    if (by_j0 < 3) {
      #pragma unroll
      for (int by_u = 0; by_u < 1; ++by_u) {
        const int by_j = by_j0 + by_u;
        by_c0[by_k * 1 + by_u] = in0[(by_j)*20 + (by_r0)*5 + (by_r1)];
      }
    }
  }
  float by_st0;
  {
    float acc = (-by_inf_f());
    #pragma unroll
    for (int by_s = 0; by_s < 1; ++by_s) {
      const int by_j = (by_s) * 32 + by_lane;
      (void)by_j;
      if (by_j < 3) {
        acc = by_max(acc, (by_c0[(by_s)]));
      }
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = by_max(acc, o);
    }
    by_st0 = (float)(acc);
  }
  float by_st1;
  {
    float acc = 0.0f;
    #pragma unroll
    for (int by_s = 0; by_s < 1; ++by_s) {
      const int by_j = (by_s) * 32 + by_lane;
      (void)by_j;
      if (by_j < 3) {
        acc = acc + (by_exp((by_c0[(by_s)] - by_st0)));
      }
    }
    for (int by_d = 16; by_d > 0; by_d >>= 1) {
      const float o = __shfl_xor_sync(0xffffffffu, acc, by_d);
      acc = acc + o;
    }
    by_st1 = (float)(acc);
  }
  float by_o[1];
  #pragma unroll
  for (int by_s = 0; by_s < 1; ++by_s) {
    const int by_j = (by_s) * 32 + by_lane;
    (void)by_j;
    if (by_j < 3) {
      by_o[by_s] = (float)((by_exp((by_c0[(by_s)] - by_st0)) / by_st1));
    }
  }
  #pragma unroll
  for (int by_k = 0; by_k < 1; ++by_k) {
    const int by_j0 = by_k * 32 + by_lane * 1;
    if (by_j0 < 3) {
      #pragma unroll
      for (int by_u = 0; by_u < 1; ++by_u) {
        const int by_j = by_j0 + by_u;
        int by_crem = by_j;
        const int by_i0 = by_crem;
        (void)by_crem;
        out[by_i0 * 20 + by_r0 * 5 + by_r1 * 1] = by_o[by_k * 1 + by_u];
      }
    }
  }
}
BY_KERNEL void __launch_bounds__(32) softmax_regrows_k0(const float* __restrict__ in0, float* __restrict__ out) {
  softmax_regrows_k0_body(in0, out, by_this_block());
}

// golden: test_softplus h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: softplus_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== softplus_k0 =====
BY_DEVICE void softplus_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_softplus(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_softplus(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_softplus(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_softplus(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_softplus(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) softplus_k0(const float* __restrict__ in0, float* __restrict__ out) {
  softplus_k0_body(in0, out, by_this_block());
}

// golden: test_softsign h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: softsign_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== softsign_k0 =====
BY_DEVICE void softsign_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          const float t0 = by_e0[by_j];
          by_oe[by_j] = (float)((t0 / (by_abs(t0) + 1.0f)));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)((t0 / (by_abs(t0) + 1.0f)));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)((t0 / (by_abs(t0) + 1.0f)));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)((t0 / (by_abs(t0) + 1.0f)));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      const float t0 = in0[(i0)*20 + (i1)*5 + (i2)];
      out[(i0)*20 + (i1)*5 + (i2)] = (float)((t0 / (by_abs(t0) + 1.0f)));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) softsign_k0(const float* __restrict__ in0, float* __restrict__ out) {
  softsign_k0_body(in0, out, by_this_block());
}

// golden: test_spacetodepth h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: space_to_depth_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== space_to_depth_k0 =====
BY_DEVICE void space_to_depth_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 144; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 144) break;
      int by_rem = lin;
      const int i3 = by_rem % 3; by_rem /= 3;
      const int i2 = by_rem % 3; by_rem /= 3;
      const int i1 = by_rem % 8; by_rem /= 8;
      const int i0 = by_rem;
      const int t0 = (i1 / (2ll));
      out[(i0)*72 + (i1)*9 + (i2)*3 + (i3)] = (float)(in0[(i0)*72 + ((i1 % (2ll)))*36 + (((i2 * (2ll)) + (t0 / (2ll))))*6 + (((i3 * (2ll)) + (t0 % (2ll))))]);
    }
  }
}
BY_KERNEL void __launch_bounds__(512) space_to_depth_k0(const float* __restrict__ in0, float* __restrict__ out) {
  space_to_depth_k0_body(in0, out, by_this_block());
}

// golden: test_split_1d_uneven_split_opset18 h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: colaunch_k0 grid=[4, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float float out:float float out:float float out:float]

// ===== colaunch_k0 =====
BY_DEVICE void split_210682358a59ac0e_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 2; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 2) break;
      const int i0 = lin;
      out[(i0)] = (float)(in0[(i0)]);
    }
  }
}
BY_DEVICE void split_b6ba104c203fac3f_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 2; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 2) break;
      const int i0 = lin;
      out[(i0)] = (float)(in0[((i0 + (2ll)))]);
    }
  }
}
BY_DEVICE void split_8fdf57675cdeb4d9_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 2; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 2) break;
      const int i0 = lin;
      out[(i0)] = (float)(in0[((i0 + (4ll)))]);
    }
  }
}
BY_DEVICE void split_e618043d0cd8ccd4_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 1; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 1) break;
      const int i0 = 0;
      out[0] = (float)(in0[((i0 + (6ll)))]);
    }
  }
}
BY_DEVICE void colaunch_k0_body(const float* __restrict__ m0_in0, float* __restrict__ m0_out, const float* __restrict__ m1_in0, float* __restrict__ m1_out, const float* __restrict__ m2_in0, float* __restrict__ m2_out, const float* __restrict__ m3_in0, float* __restrict__ m3_out, const by_block_index by_block) {
  const unsigned int by_b = by_block.idx.x;
  if (by_b < 1u) split_210682358a59ac0e_body(m0_in0, m0_out, by_block_at(by_b - 0u, dim3(1, 1, 1)));
  else if (by_b < 2u) split_b6ba104c203fac3f_body(m1_in0, m1_out, by_block_at(by_b - 1u, dim3(1, 1, 1)));
  else if (by_b < 3u) split_8fdf57675cdeb4d9_body(m2_in0, m2_out, by_block_at(by_b - 2u, dim3(1, 1, 1)));
  else if (by_b < 4u) split_e618043d0cd8ccd4_body(m3_in0, m3_out, by_block_at(by_b - 3u, dim3(1, 1, 1)));
}
BY_KERNEL void __launch_bounds__(512) colaunch_k0(const float* __restrict__ m0_in0, float* __restrict__ m0_out, const float* __restrict__ m1_in0, float* __restrict__ m1_out, const float* __restrict__ m2_in0, float* __restrict__ m2_out, const float* __restrict__ m3_in0, float* __restrict__ m3_out) {
  colaunch_k0_body(m0_in0, m0_out, m1_in0, m1_out, m2_in0, m2_out, m3_in0, m3_out, by_this_block());
}

// golden: test_split_to_sequence_1 h100 fp32
// refused: unsupported_op

// golden: test_sqrt h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: sqrt_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== sqrt_k0 =====
BY_DEVICE void sqrt_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_sqrt(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_sqrt(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_sqrt(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_sqrt(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_sqrt(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) sqrt_k0(const float* __restrict__ in0, float* __restrict__ out) {
  sqrt_k0_body(in0, out, by_this_block());
}

// golden: test_squeeze h100 fp32
// refused: shape

// golden: test_stft h100 fp32
// refused: shape

// golden: test_string_concat h100 fp32
// refused: unsupported_op

// golden: test_string_split_basic h100 fp32
// refused: unsupported_op

// golden: test_strnormalizer_export_monday_casesensintive_lower h100 fp32
// refused: unsupported_op

// golden: test_sum_example h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: sum_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float float out:float]

// ===== sum_k0 =====
BY_DEVICE void sum_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 3; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 3) break;
      const int i0 = lin;
      out[(i0)] = (float)(((in0[(i0)] + in1[(i0)]) + in2[(i0)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) sum_k0(const float* __restrict__ in0, const float* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out) {
  sum_k0_body(in0, in1, in2, out, by_this_block());
}

// golden: test_swiglu h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: swiglu_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float out:float]

// ===== swiglu_k0 =====
BY_DEVICE void swiglu_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0) | (unsigned long long)(in1)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 2; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*4 + (i1)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*4 + (i1)));
        const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          const float t0 = by_e0[by_j];
          by_oe[by_j] = (float)(((t0 * by_sigmoid(t0)) * by_e1[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 2) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*4 + (i1)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*4 + (i1)));
          const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)(((t0 * by_sigmoid(t0)) * by_e1[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 2) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*4 + (i1)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*4 + (i1)));
          const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)(((t0 * by_sigmoid(t0)) * by_e1[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 2) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*4 + (i1)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          const uint4 by_r1 = by_ld_global_b128(in1 + ((i0)*4 + (i1)));
          const float* const by_e1 = reinterpret_cast<const float*>(&by_r1);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)(((t0 * by_sigmoid(t0)) * by_e1[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 8; by_lin += by_step) {
      int by_rem = by_lin;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      const float t0 = in0[(i0)*4 + (i1)];
      out[(i0)*4 + (i1)] = (float)(((t0 * by_sigmoid(t0)) * in1[(i0)*4 + (i1)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) swiglu_k0(const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out) {
  swiglu_k0_body(in0, in1, out, by_this_block());
}

// golden: test_swish h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: swish_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== swish_k0 =====
BY_DEVICE void swish_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 3; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 3) break;
      const int i0 = lin;
      const float t0 = in0[(i0)];
      out[(i0)] = (float)((t0 * by_sigmoid(t0)));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) swish_k0(const float* __restrict__ in0, float* __restrict__ out) {
  swish_k0_body(in0, out, by_this_block());
}

// golden: test_tan h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: tan_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== tan_k0 =====
BY_DEVICE void tan_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_tan(by_e0[by_j]));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_tan(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_tan(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_tan(by_e0[by_j]));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_tan(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) tan_k0(const float* __restrict__ in0, float* __restrict__ out) {
  tan_k0_body(in0, out, by_this_block());
}

// golden: test_tanh h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: tanh_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== tanh_k0 =====
BY_DEVICE void tanh_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
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
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
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
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
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
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
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
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(by_tanh(in0[(i0)*20 + (i1)*5 + (i2)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) tanh_k0(const float* __restrict__ in0, float* __restrict__ out) {
  tanh_k0_body(in0, out, by_this_block());
}

// golden: test_tensorscatter h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: tensor_scatter_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float float long long out:float]

// ===== tensor_scatter_k0 =====
BY_DEVICE void tensor_scatter_k0_body(const float* __restrict__ in0, const float* __restrict__ in1, const long long* __restrict__ in2, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 40; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 40) break;
      const int i1 = 0;
      int by_rem = lin;
      const int i3 = by_rem % 5; by_rem /= 5;
      const int i2 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      const long long t0 = (i2 - in2[(i0)]);
      out[(i0)*20 + (i2)*5 + (i3)] = (float)((((t0 >= (0ll)) && (t0 < (1ll))) ? in1[(i0)*5 + (i1)*5 + (t0)*5 + (i3)] : in0[(i0)*20 + (i1)*20 + (i2)*5 + (i3)]));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) tensor_scatter_k0(const float* __restrict__ in0, const float* __restrict__ in1, const long long* __restrict__ in2, float* __restrict__ out) {
  tensor_scatter_k0_body(in0, in1, in2, out, by_this_block());
}

// golden: test_tfidfvectorizer_tf_batch_onlybigrams_skip0 h100 fp32
// refused: unsupported_op

// golden: test_thresholdedrelu h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: thresholdedrelu_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== thresholdedrelu_k0 =====
BY_DEVICE void thresholdedrelu_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 15; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 5; by_rem /= 5;
        const int i1 = by_rem % 4; by_rem /= 4;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          const float t0 = by_e0[by_j];
          by_oe[by_j] = (float)(((t0 > 2.0f) ? t0 : 0.0f));
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)(((t0 > 2.0f) ? t0 : 0.0f));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)(((t0 > 2.0f) ? t0 : 0.0f));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 15) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 5; by_rem /= 5;
          const int i1 = by_rem % 4; by_rem /= 4;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*20 + (i1)*5 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            const float t0 = by_e0[by_j];
            by_oe[by_j] = (float)(((t0 > 2.0f) ? t0 : 0.0f));
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 60; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 5; by_rem /= 5;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      const float t0 = in0[(i0)*20 + (i1)*5 + (i2)];
      out[(i0)*20 + (i1)*5 + (i2)] = (float)(((t0 > 2.0f) ? t0 : 0.0f));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) thresholdedrelu_k0(const float* __restrict__ in0, float* __restrict__ out) {
  thresholdedrelu_k0_body(in0, out, by_this_block());
}

// golden: test_tile h100 fp32
// refused: shape

// golden: test_top_k h100 fp32
// 2 launches, 2 distinct kernels
// launch 0: colaunch_k0 grid=[4, 1, 1] block=[512, 1, 1] shared=32 params=[float out:long long long long out:long long]
// launch 1: topk_value_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float long long out:float]

// ===== colaunch_k0 =====
BY_DEVICE void topk_index_rows_5fe02b79c57992c5_w256_body(const float* __restrict__ in0, long long* __restrict__ out, const by_block_index by_block) {
  BY_SHARED_BUFFER(by_smem_raw);
  long long* const by_res = reinterpret_cast<long long*>(by_smem_raw + 0);
  const int by_row0 = (int)by_block.idx.x * 1;
  const int by_lane = threadIdx.x & 31, by_warp = threadIdx.x >> 5;
  (void)by_lane; (void)by_warp;
  for (int by_lin = threadIdx.x; by_lin < 4; by_lin += 256) {
    const int by_rl = by_lin / 4;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 3) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    const int i1 = by_lin % 4;
    long long acc = (0ll);
    for (int r0 = 0; r0 < 4; r0 += 1) {
      const float t0 = in0[(i0)*4 + (r0)];
      const float t1 = in0[(i0)*4 + (i1)];
      const bool t2 = by_isnan(t0);
      const bool t3 = by_isnan(t1);
      const long long v = ((((t0 > t1) || (t2 && (!t3))) || (((t0 == t1) || (t2 && t3)) && (r0 < i1))) ? (1ll) : (0ll));
      acc = acc + v;
    }
    by_res[by_lin] = (long long)(acc);
  }
  by_part_sync(1u, 256u);
  for (int by_lin = threadIdx.x; by_lin < 4; by_lin += 256) {
    const int by_rl = by_lin / 4;
    const int by_row = by_row0 + by_rl;
    if (by_row >= 3) break;
    int by_rrem = by_row;
    const int i0 = by_rrem;
    (void)by_rrem;
    int by_crem = (by_lin % 4);
    const int i1 = by_crem;
    (void)by_crem;
    long long acc = (0ll);
    for (int r0 = 0; r0 < 4; r0 += 1) {
      const long long v = ((by_res[(by_rl)*4 + (r0)] == i1) ? r0 : (0ll));
      acc = acc + v;
    }
    out[i0 * 4 + i1 * 1] = (long long)(acc);
  }
}
BY_DEVICE void topk_count_bd66ab4a3fd03351_body(const long long* __restrict__ in0, long long* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 1; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 1) break;
      out[0] = (long long)(by_max((long long)(by_min((long long)(in0[0]), (long long)((4ll)))), (long long)((0ll))));
    }
  }
}
BY_DEVICE void colaunch_k0_body(const float* __restrict__ m0_in0, long long* __restrict__ m0_out, const long long* __restrict__ m1_in0, long long* __restrict__ m1_out, const by_block_index by_block) {
  const unsigned int by_b = by_block.idx.x;
  if (by_b < 3u) { if (threadIdx.x < 256u) topk_index_rows_5fe02b79c57992c5_w256_body(m0_in0, m0_out, by_block_at(by_b - 0u, dim3(3, 1, 1))); }
  else if (by_b < 4u) topk_count_bd66ab4a3fd03351_body(m1_in0, m1_out, by_block_at(by_b - 3u, dim3(1, 1, 1)));
}
BY_KERNEL void __launch_bounds__(512) colaunch_k0(const float* __restrict__ m0_in0, long long* __restrict__ m0_out, const long long* __restrict__ m1_in0, long long* __restrict__ m1_out) {
  colaunch_k0_body(m0_in0, m0_out, m1_in0, m1_out, by_this_block());
}

// ===== topk_value_k0 =====
BY_DEVICE void topk_value_k0_body(const float* __restrict__ in0, const long long* __restrict__ in1, float* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 12; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 12) break;
      int by_rem = lin;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*4 + (i1)] = (float)(in0[(i0)*4 + (in1[(i0)*4 + (i1)])]);
    }
  }
}
BY_KERNEL void __launch_bounds__(512) topk_value_k0(const float* __restrict__ in0, const long long* __restrict__ in1, float* __restrict__ out) {
  topk_value_k0_body(in0, in1, out, by_this_block());
}

// golden: test_transpose_all_permutations_0 h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: transpose_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[float out:float]

// ===== transpose_k0 =====
BY_DEVICE void transpose_k0_body(const float* __restrict__ in0, float* __restrict__ out, const by_block_index by_block) {
  const bool by_aligned = (((unsigned long long)(out) | (unsigned long long)(in0)) & 15ull) == 0ull;
  const int by_tid = (int)by_block.idx.x * 512 + threadIdx.x;
  const int by_step = (int)by_block.grid.x * 512;
  if (by_aligned) {
    for (int by_v0 = (int)by_block.idx.x * 2048 + threadIdx.x; by_v0 < 6; by_v0 += (int)by_block.grid.x * 2048) {
      {
        const int by_q = by_v0 + 0;
        const int by_lin = by_q * 4;
        int by_rem = by_lin;
        const int i2 = by_rem % 4; by_rem /= 4;
        const int i1 = by_rem % 3; by_rem /= 3;
        const int i0 = by_rem;
        const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*12 + (i1)*4 + (i2)));
        const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
        uint4 by_o;
        float* const by_oe = reinterpret_cast<float*>(&by_o);
        #pragma unroll
        for (int by_j = 0; by_j < 4; ++by_j) {
          by_oe[by_j] = (float)(by_e0[by_j]);
        }
        by_st_global_b128(out + by_lin, by_o);
      }
      {
        const int by_q = by_v0 + 512;
        if (by_q < 6) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 4; by_rem /= 4;
          const int i1 = by_rem % 3; by_rem /= 3;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*12 + (i1)*4 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_e0[by_j]);
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1024;
        if (by_q < 6) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 4; by_rem /= 4;
          const int i1 = by_rem % 3; by_rem /= 3;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*12 + (i1)*4 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_e0[by_j]);
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
      {
        const int by_q = by_v0 + 1536;
        if (by_q < 6) {
          const int by_lin = by_q * 4;
          int by_rem = by_lin;
          const int i2 = by_rem % 4; by_rem /= 4;
          const int i1 = by_rem % 3; by_rem /= 3;
          const int i0 = by_rem;
          const uint4 by_r0 = by_ld_global_b128(in0 + ((i0)*12 + (i1)*4 + (i2)));
          const float* const by_e0 = reinterpret_cast<const float*>(&by_r0);
          uint4 by_o;
          float* const by_oe = reinterpret_cast<float*>(&by_o);
          #pragma unroll
          for (int by_j = 0; by_j < 4; ++by_j) {
            by_oe[by_j] = (float)(by_e0[by_j]);
          }
          by_st_global_b128(out + by_lin, by_o);
        }
      }
    }
  } else {
    for (int by_lin = by_tid; by_lin < 24; by_lin += by_step) {
      int by_rem = by_lin;
      const int i2 = by_rem % 4; by_rem /= 4;
      const int i1 = by_rem % 3; by_rem /= 3;
      const int i0 = by_rem;
      out[(i0)*12 + (i1)*4 + (i2)] = (float)(in0[(i0)*12 + (i1)*4 + (i2)]);
    }
  }
}
BY_KERNEL void __launch_bounds__(512) transpose_k0(const float* __restrict__ in0, float* __restrict__ out) {
  transpose_k0_body(in0, out, by_this_block());
}

// golden: test_tril h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: trilu_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[long long out:long long]

// ===== trilu_k0 =====
BY_DEVICE void trilu_k0_body(const long long* __restrict__ in0, long long* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 20; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 20) break;
      int by_rem = lin;
      const int i1 = by_rem % 5; by_rem /= 5;
      const int i0 = by_rem;
      out[(i0)*5 + (i1)] = (long long)((((i1 - i0) <= (0ll)) ? in0[(i0)*5 + (i1)] : (0ll)));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) trilu_k0(const long long* __restrict__ in0, long long* __restrict__ out) {
  trilu_k0_body(in0, out, by_this_block());
}

// golden: test_unique_bfloat16_sorted_without_axis h100 fp32
// refused: shape

// golden: test_unsqueeze_axis_0 h100 fp32
// refused: shape

// golden: test_upsample_nearest h100 fp32
// refused: shape

// golden: test_xor2d h100 fp32
// 1 launches, 1 distinct kernels
// launch 0: xor_k0 grid=[1, 1, 1] block=[512, 1, 1] shared=0 params=[bool bool out:bool]

// ===== xor_k0 =====
BY_DEVICE void xor_k0_body(const bool* __restrict__ in0, const bool* __restrict__ in1, bool* __restrict__ out, const by_block_index by_block) {
  for (int base = (int)by_block.idx.x * 512 + threadIdx.x; base < 12; base += (int)by_block.grid.x * 512) {
    #pragma unroll
    for (int u = 0; u < 1; ++u) {
      const int lin = base + u * 512;
      if (lin >= 12) break;
      int by_rem = lin;
      const int i1 = by_rem % 4; by_rem /= 4;
      const int i0 = by_rem;
      out[(i0)*4 + (i1)] = (bool)(((in0[(i0)*4 + (i1)]) != (in1[(i0)*4 + (i1)])));
    }
  }
}
BY_KERNEL void __launch_bounds__(512) xor_k0(const bool* __restrict__ in0, const bool* __restrict__ in1, bool* __restrict__ out) {
  xor_k0_body(in0, in1, out, by_this_block());
}
