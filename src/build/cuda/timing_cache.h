// timing_cache.h: measured kernel times on disk, so a second build of the same network on the same GPU skips the
// timing (TensorRT's timing cache). One line per entry: "<key>\t<milliseconds>". The key names the GPU, driver,
// CUDA runtime, strata version, tactic, config and the step's shapes, dtypes, layouts and attributes, so an entry
// never applies to another machine or version. A missing or unreadable file is an empty cache.
#pragma once

#include <map>
#include <optional>
#include <string>

namespace strata::build {

class TimingCache {
public:
    /// `path` "" = no file (in-memory only).
    explicit TimingCache(std::string path);
    std::optional<double> find(const std::string& key) const;
    void put(const std::string& key, double ms);
    /// Writes the file if anything was added (atomically: a temporary file, then rename), keeping the entries other
    /// processes saved since this cache was read. Never throws.
    void save() const;
    size_t hits() const { return hits_; }
    size_t misses() const { return misses_; }

    /// The path from the build option: "" = $STRATA_TIMING_CACHE, else ~/.cache/strata/timing.cache; "none" = none.
    static std::string resolve_path(const std::string& option);

private:
    std::string path_;
    std::map<std::string, double> entries_;
    bool dirty_ = false;
    mutable size_t hits_ = 0, misses_ = 0;
};

}  // namespace strata::build
