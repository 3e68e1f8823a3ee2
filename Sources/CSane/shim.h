#include <sane/sane.h>
#include <sane/saneopts.h>
