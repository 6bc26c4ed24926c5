# Sourced by the build scripts: the same numeric kernels on every x86-64 machine with AVX2.
#
# OpenBLAS (gensim's training, through SciPy, and NumPy), MKL and ATen (torch's
# distillation) pick their kernels by the CPU they run on, and kernels of other vector
# widths sum in another order: on one machine, OpenBLAS's SSE3 kernels instead of its AVX2
# ones changed the code model's hash, and ATen's generic code or MKL's "compatible" path
# changed the distillation's. Pinned to the AVX2 kernels, a build on an AVX-512 machine runs
# what an AVX2-only one runs. A value the caller set is kept; a machine without AVX2 (or
# not x86-64) is left to its own kernels, which no pin could match.
if [[ $(uname -m) == x86_64 ]] && grep -qw avx2 /proc/cpuinfo 2>/dev/null; then
    export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-Haswell}
    export MKL_CBWR=${MKL_CBWR:-AVX2}
    export ATEN_CPU_CAPABILITY=${ATEN_CPU_CAPABILITY:-avx2}
    export ONEDNN_MAX_CPU_ISA=${ONEDNN_MAX_CPU_ISA:-AVX2}
fi
