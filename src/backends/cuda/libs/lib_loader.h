// lib_loader.h: finds and opens an NVIDIA library at run time (dlopen), so that a machine without it still runs
// strata: its tactics say why they cannot run instead of the binary failing to start (DESIGN.md).
#pragma once

#include <string>
#include <vector>

namespace strata::cuda::libs {

/// One library opened with dlopen, or the record of where it was not found.
struct LoadedLibrary {
    void* handle = nullptr;             ///< dlopen handle; null when not found
    std::string path;                   ///< what was opened (a plain soname or a full path)
    std::vector<std::string> searched;  ///< every place tried, with why it failed ("path (absent)")

    bool found() const { return handle != nullptr; }
    /// "a (why), b (why), ..." for error messages.
    std::string searched_list() const;
};

/// Tries, in order: the plain `soname` (dlopen's own search: LD_LIBRARY_PATH, rpath, ldconfig), the file named by
/// the environment variable `env_var`, then `soname` in each of `folders` (see nvidia_library_folders()).
LoadedLibrary open_library(const std::string& soname, const char* env_var, const std::vector<std::string>& folders);

/// The folders where NVIDIA's libraries live outside the linker's path: the pip packages of PyTorch (site-packages/
/// nvidia/<package>/lib for each package in `packages`, in the usual virtual environments and system Pythons) and
/// the CUDA toolkit's lib64.
std::vector<std::string> nvidia_library_folders(const std::vector<std::string>& packages);

/// Opens `soname` from the folder `library` was loaded from (the sub-libraries a shim library loads by name), so
/// that a later dlopen by soname finds it already loaded. Returns false when it is not there (not an error).
bool preload_beside(const LoadedLibrary& library, const std::string& soname);

/// dlsym with the symbol's name; null when absent.
void* find_symbol(const LoadedLibrary& library, const char* name);

}  // namespace strata::cuda::libs
