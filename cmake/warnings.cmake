# Warnings as the project wants them: loud, but not -Werror (a newer compiler must not break a user's build).
function(strata_warnings target)
    target_compile_options(${target} PRIVATE
        $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter -Wno-sign-compare>)
endfunction()

# The strata binary must run on a machine with nothing installed (the GPU machine runs Ubuntu 24.04 with only the
# CUDA stack): libstdc++ and libgcc go in statically; glibc stays dynamic (newer glibc runs older binaries).
function(strata_portable_link target)
    target_link_options(${target} PRIVATE -static-libstdc++ -static-libgcc)
endfunction()
