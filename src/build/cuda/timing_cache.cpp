// timing_cache.cpp: see timing_cache.h.
#include "build/cuda/timing_cache.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <unistd.h>

namespace strata::build {

namespace {

std::map<std::string, double> read_entries(const std::string& path) {
    std::map<std::string, double> entries;
    std::ifstream in(path);
    std::string line;
    while (std::getline(in, line)) {
        size_t tab = line.rfind('\t');
        if (tab == std::string::npos) continue;
        char* end = nullptr;
        double ms = std::strtod(line.c_str() + tab + 1, &end);
        if (end != line.c_str() + tab + 1 && ms >= 0) entries[line.substr(0, tab)] = ms;
    }
    return entries;
}

}  // namespace

TimingCache::TimingCache(std::string path) : path_(std::move(path)) {
    if (!path_.empty()) entries_ = read_entries(path_);
}

std::optional<double> TimingCache::find(const std::string& key) const {
    auto it = entries_.find(key);
    if (it == entries_.end()) {
        ++misses_;
        return std::nullopt;
    }
    ++hits_;
    return it->second;
}

void TimingCache::put(const std::string& key, double ms) {
    entries_[key] = ms;
    dirty_ = true;
}

void TimingCache::save() const {
    if (path_.empty() || !dirty_) return;
    std::error_code ec;
    std::filesystem::path p(path_);
    if (p.has_parent_path()) std::filesystem::create_directories(p.parent_path(), ec);
    // Builds running side by side share one cache (parallel test shards, several `strata build`s): what another
    // process saved since this one read the file is kept, and this one's own measurements win where both timed.
    std::map<std::string, double> merged = read_entries(path_);
    for (const auto& [k, ms] : entries_) merged[k] = ms;
    // The process id keeps two processes' temporary files apart (their cache objects may share an address).
    std::string tmp = path_ + ".tmp" + std::to_string(static_cast<long long>(getpid())) + "_" +
                      std::to_string(reinterpret_cast<uintptr_t>(this));
    {
        std::ofstream out(tmp, std::ios::trunc);
        if (!out) return;
        for (const auto& [k, ms] : merged) out << k << '\t' << ms << '\n';
        if (!out) return;
    }
    std::filesystem::rename(tmp, path_, ec);
    if (ec) std::filesystem::remove(tmp, ec);
}

std::string TimingCache::resolve_path(const std::string& option) {
    if (option == "none") return {};
    if (!option.empty()) return option;
    if (const char* env = std::getenv("STRATA_TIMING_CACHE"); env && *env) return std::string(env) == "none" ? "" : env;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg) return std::string(xdg) + "/strata/timing.cache";
    if (const char* home = std::getenv("HOME"); home && *home) return std::string(home) + "/.cache/strata/timing.cache";
    return {};
}

}  // namespace strata::build
