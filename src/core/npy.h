// npy.h: numpy .npy (and .npz, uncompressed) files. Errors name the file and what is wrong with its header.
#pragma once

#include <map>
#include <string>

#include "strata/tensor.h"

namespace strata {

Tensor read_npy(const std::string& path);
void write_npy(const std::string& path, const Tensor& tensor);
/// An uncompressed .npz (a zip of .npy files, one per name), as numpy.savez writes.
void write_npz(const std::string& path, const std::map<std::string, Tensor>& tensors);

}  // namespace strata
