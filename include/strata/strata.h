/// strata/strata.h: the whole public API in one include.
#pragma once

#include "strata/engine.h"
#include "strata/status.h"
#include "strata/tensor.h"
