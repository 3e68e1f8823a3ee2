#include <inotifytools/inotifytools.h>
