// Host memory for CPU tensors. libtorch's CPU allocator has no cache: every tensor is a fresh
// malloc, and glibc serves blocks above its mmap threshold (128 KiB, rising to 32 MiB at most) with
// mmap/munmap, so a model step's large activations are faulted in and zeroed page by page on every
// use. Measured on the vision tower (17 crops make 200 MB activations): 55% of the matmul limit
// with glibc's defaults, 72% with freed blocks kept for reuse.
#pragma once

namespace mineru::engine {

// Keeps freed blocks up to 1 GiB in the heap for reuse (mmap threshold and trim threshold raised).
// Call once at the start of a process that runs the model on the CPU; memory the model freed stays
// with the process (within its own peak) until TrimHostMemory.
void KeepFreedHostMemoryForReuse();

// Returns free heap memory to the system (for an idle long-running process).
void TrimHostMemory();

}  // namespace mineru::engine
