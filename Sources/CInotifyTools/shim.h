#include <sys/inotify.h>
#include <inotifytools/inotifytools.h>
