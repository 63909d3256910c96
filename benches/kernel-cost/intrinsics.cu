// The classic-intrinsics twins of kernels.rs (kernel-cost report): `atomicAdd`,
// `atomicAdd_block`, `atomicCAS`, and for acquire/release the classic `volatile` access with
// `__threadfence()` — the same orders, scopes, loops, names and parameters.

extern "C" __global__ void histogram(const unsigned* input, unsigned n, unsigned* hist) {
  __shared__ unsigned bins[256];
  unsigned t = threadIdx.x;
  for (unsigned b = t; b < 256; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  for (unsigned i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x)
    atomicAdd_block(&bins[input[i] & 255], 1u);
  __syncthreads();
  for (unsigned b = t; b < 256; b += blockDim.x) atomicAdd(&hist[b], bins[b]);
}

template <class T> __device__ void block_reduce(const T* input, unsigned n, T* out) {
  __shared__ T partial[256];
  unsigned t = threadIdx.x;
  T sum = 0;
  for (unsigned i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) sum += input[i];
  partial[t] = sum;
  __syncthreads();
  for (unsigned s = blockDim.x / 2; s > 0; s /= 2) {
    if (t < s) partial[t] = partial[t] + partial[t + s];
    __syncthreads();
  }
  if (t == 0) atomicAdd(out, partial[0]);
}

extern "C" __global__ void block_reduce_f32(const float* input, unsigned n, float* out) {
  block_reduce(input, n, out);
}

extern "C" __global__ void block_reduce_u32(const unsigned* input, unsigned n, unsigned* out) {
  block_reduce(input, n, out);
}

extern "C" __global__ void ticket_lock(unsigned* next, unsigned* serving, unsigned* counter, unsigned n) {
  for (unsigned k = 0; k < n; ++k) {
    unsigned ticket = atomicAdd(next, 1u);
    while (*(volatile unsigned*)serving != ticket) {}
    __threadfence();
    *counter = *counter + 1;
    __threadfence();
    *(volatile unsigned*)serving = ticket + 1;
  }
}

extern "C" __global__ void hash_insert(unsigned* keys, unsigned* values, unsigned mask, const unsigned* input, unsigned n) {
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned key = input[i];
  unsigned slot = (key * 0x9e3779b1u) & mask;
  for (;;) {
    unsigned previous = atomicCAS(&keys[slot], 0xffffffffu, key);
    if (previous == 0xffffffffu || previous == key) break;
    slot = (slot + 1) & mask;
  }
  values[slot] = i;
}

extern "C" __global__ void message_passing(unsigned* data, unsigned* flag, unsigned* out, unsigned n) {
  unsigned t = threadIdx.x;
  if (blockIdx.x == 0) {
    for (unsigned i = t; i < n; i += blockDim.x) data[i] = i * 3;
    __syncthreads();
    if (t == 0) {
      __threadfence();
      *(volatile unsigned*)flag = 1;
    }
  } else {
    if (t == 0) {
      while (*(volatile unsigned*)flag == 0) {}
      __threadfence();
    }
    __syncthreads();
    for (unsigned i = t; i < n; i += blockDim.x) out[(blockIdx.x - 1) * n + i] = data[i];
  }
}

extern "C" __global__ void polling_loop(unsigned* flag, const unsigned* scale, unsigned* out, unsigned n) {
  unsigned sum = 0;
  for (unsigned k = 0; k < n; ++k) sum += *(volatile unsigned*)flag * *scale;
  *out = sum;
}
