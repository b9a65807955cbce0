// fmt_library.cpp: fmt's out-of-line functions, compiled once into strata_lib. Debian ships fmt only as a shared
// library, and strata's binaries link nothing but libc/libm at run time (they travel to the GPU machine, which has no
// libfmt), so the build used fmt in header-only mode: every translation unit then compiled fmt's formatting code
// again, 3-4 s of the ~10-20 s each of strata's larger sources took to compile (2026-12-03, g++ 12 -O3). Here
// fmt's implementation header gives the non-template functions their one definition, and the two locale helpers the
// headers call for `char` are instantiated explicitly (the linker asked for exactly these).
#include <fmt/format-inl.h>

FMT_BEGIN_NAMESPACE
namespace detail {
template auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template auto decimal_point_impl<char>(locale_ref) -> char;
}  // namespace detail
FMT_END_NAMESPACE
