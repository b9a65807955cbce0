// lib_loader.cpp: see lib_loader.h.
#include "backends/cuda/libs/lib_loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace strata::cuda::libs {

namespace fs = std::filesystem;

namespace {
std::string last_dl_error() {
    const char* e = dlerror();
    return e ? e : "unknown error";
}

void* try_open(const std::string& what, LoadedLibrary& lib) {
    void* h = dlopen(what.c_str(), RTLD_NOW | RTLD_GLOBAL);
    if (h) lib.path = what;
    return h;
}

// The python3.* folders under `root` that hold site-packages or dist-packages.
void add_python_folders(const fs::path& root, std::vector<fs::path>& out) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) return;
    for (const auto& entry : fs::directory_iterator(root, ec)) {
        std::string name = entry.path().filename().string();
        if (name.rfind("python3", 0) != 0) continue;
        for (const char* sub : {"site-packages", "dist-packages"})
            if (fs::is_directory(entry.path() / sub, ec)) out.push_back(entry.path() / sub);
    }
}
}  // namespace

std::string LoadedLibrary::searched_list() const {
    std::string s;
    for (const auto& p : searched) s += (s.empty() ? "" : ", ") + p;
    return s;
}

LoadedLibrary open_library(const std::string& soname, const char* env_var, const std::vector<std::string>& folders) {
    LoadedLibrary lib;
    if ((lib.handle = try_open(soname, lib))) return lib;
    lib.searched.push_back(soname + " (" + last_dl_error() + ")");
    const char* env = std::getenv(env_var);
    if (env && *env) {
        if ((lib.handle = try_open(env, lib))) return lib;
        lib.searched.push_back(std::string("$") + env_var + "=" + env + " (" + last_dl_error() + ")");
    } else {
        lib.searched.push_back(std::string("$") + env_var + " (unset)");
    }
    std::error_code ec;
    for (const auto& folder : folders) {
        fs::path file = fs::path(folder) / soname;
        if (!fs::exists(file, ec)) {
            lib.searched.push_back(file.string() + " (absent)");
            continue;
        }
        if ((lib.handle = try_open(file.string(), lib))) return lib;
        lib.searched.push_back(file.string() + " (" + last_dl_error() + ")");
    }
    return lib;
}

std::vector<std::string> nvidia_library_folders(const std::vector<std::string>& packages) {
    std::vector<fs::path> roots = {"/opt/torch/.venv/lib", "/usr/local/lib", "/usr/lib", "/opt/conda/lib"};
    for (const char* var : {"VIRTUAL_ENV", "CONDA_PREFIX"})
        if (const char* v = std::getenv(var); v && *v) roots.insert(roots.begin(), fs::path(v) / "lib");
    if (const char* home = std::getenv("HOME"); home && *home) roots.push_back(fs::path(home) / ".local/lib");
    std::vector<fs::path> python;
    for (const auto& root : roots) add_python_folders(root, python);
    python.push_back("/usr/lib/python3/dist-packages");

    std::vector<std::string> folders;
    std::error_code ec;
    for (const auto& site : python)
        for (const auto& package : packages)
            if (fs::is_directory(site / "nvidia" / package / "lib", ec))
                folders.push_back((site / "nvidia" / package / "lib").string());
    folders.push_back("/usr/local/cuda/lib64");
    folders.push_back("/usr/local/cuda/lib");
    return folders;
}

bool preload_beside(const LoadedLibrary& library, const std::string& soname) {
    if (!library.found()) return false;
    fs::path folder = fs::path(library.path).parent_path();
    if (folder.empty()) return false;  // opened by soname: the linker's own search finds its siblings
    std::error_code ec;
    fs::path file = folder / soname;
    if (!fs::exists(file, ec)) return false;
    return dlopen(file.c_str(), RTLD_NOW | RTLD_GLOBAL) != nullptr;
}

void* find_symbol(const LoadedLibrary& library, const char* name) {
    return library.found() ? dlsym(library.handle, name) : nullptr;
}

}  // namespace strata::cuda::libs
