#ifndef REACTORHUB_CLIBWEBSOCKETS_SHIM_H
#define REACTORHUB_CLIBWEBSOCKETS_SHIM_H
#include <libwebsockets.h>
#endif
