// Only the header matters: this file exists because SwiftPM needs a source in a C target.
#include "CLibFuzzer.h"
