// The project's version (MINERU_VERSION_STRING and friends), generated from CMake's project version
// into the public header mineru/version.h.
#pragma once

#include "mineru/version.h"
