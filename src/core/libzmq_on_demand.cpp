// libzmq_on_demand.cpp — libzmq's functions for fathom and cppzmq, loaded the first time one
// is called (see core/lazy_library.h): commands that talk to no collector, aggregator or
// subscriber never load libzmq and the fourteen libraries it brings.
//
// Each function of libzmq's C API that fathom calls (through cppzmq's inline wrappers) is
// defined here under its own name and forwards to the library's. Linked instead of libzmq
// (the fathom_libzmq target). When libzmq cannot be loaded, the first call says which
// package to install and ends the program: nothing that needs ZeroMQ can go on without it.
#include <zmq.h>

#include "core/lazy_library.h"

namespace fathom {
namespace {

#define FATHOM_LIBZMQ_FUNCTIONS(X) \
  X(zmq_bind)                      \
  X(zmq_close)                     \
  X(zmq_connect)                   \
  X(zmq_ctx_new)                   \
  X(zmq_ctx_term)                  \
  X(zmq_curve_keypair)             \
  X(zmq_curve_public)              \
  X(zmq_errno)                     \
  X(zmq_getsockopt)                \
  X(zmq_msg_close)                 \
  X(zmq_msg_data)                  \
  X(zmq_msg_gets)                  \
  X(zmq_msg_init)                  \
  X(zmq_msg_more)                  \
  X(zmq_msg_recv)                  \
  X(zmq_msg_size)                  \
  X(zmq_poll)                      \
  X(zmq_recv)                      \
  X(zmq_send)                      \
  X(zmq_setsockopt)                \
  X(zmq_socket)                    \
  X(zmq_socket_monitor)            \
  X(zmq_strerror)                  \
  X(zmq_z85_encode)

struct LibZmq {
  FATHOM_LIBZMQ_FUNCTIONS(FATHOM_LIBRARY_MEMBER)
};

constexpr LibraryName kLibZmq{"libzmq.so.5", "libzmq5", "fathom's collectors, aggregators and subscribers"};

FATHOM_LIBRARY_LOADER(LibZmq, FATHOM_LIBZMQ_FUNCTIONS, kLibZmq, LoadLibZmq)

const LibZmq& Zmq() { return LoadedOrExit(LoadLibZmq()); }

}  // namespace
}  // namespace fathom

using fathom::Zmq;

extern "C" {

int zmq_bind(void* s, const char* addr) { return Zmq().zmq_bind(s, addr); }
int zmq_close(void* s) { return Zmq().zmq_close(s); }
int zmq_connect(void* s, const char* addr) { return Zmq().zmq_connect(s, addr); }
void* zmq_ctx_new(void) { return Zmq().zmq_ctx_new(); }
int zmq_ctx_term(void* context) { return Zmq().zmq_ctx_term(context); }
int zmq_curve_keypair(char* z85_public_key, char* z85_secret_key) {
  return Zmq().zmq_curve_keypair(z85_public_key, z85_secret_key);
}
int zmq_curve_public(char* z85_public_key, const char* z85_secret_key) {
  return Zmq().zmq_curve_public(z85_public_key, z85_secret_key);
}
int zmq_errno(void) { return Zmq().zmq_errno(); }
int zmq_getsockopt(void* s, int option, void* optval, size_t* optvallen) {
  return Zmq().zmq_getsockopt(s, option, optval, optvallen);
}
int zmq_msg_close(zmq_msg_t* msg) { return Zmq().zmq_msg_close(msg); }
void* zmq_msg_data(zmq_msg_t* msg) { return Zmq().zmq_msg_data(msg); }
const char* zmq_msg_gets(const zmq_msg_t* msg, const char* property) { return Zmq().zmq_msg_gets(msg, property); }
int zmq_msg_init(zmq_msg_t* msg) { return Zmq().zmq_msg_init(msg); }
int zmq_msg_more(const zmq_msg_t* msg) { return Zmq().zmq_msg_more(msg); }
int zmq_msg_recv(zmq_msg_t* msg, void* s, int flags) { return Zmq().zmq_msg_recv(msg, s, flags); }
size_t zmq_msg_size(const zmq_msg_t* msg) { return Zmq().zmq_msg_size(msg); }
int zmq_poll(zmq_pollitem_t* items, int nitems, long timeout) { return Zmq().zmq_poll(items, nitems, timeout); }
int zmq_recv(void* s, void* buf, size_t len, int flags) { return Zmq().zmq_recv(s, buf, len, flags); }
int zmq_send(void* s, const void* buf, size_t len, int flags) { return Zmq().zmq_send(s, buf, len, flags); }
int zmq_setsockopt(void* s, int option, const void* optval, size_t optvallen) {
  return Zmq().zmq_setsockopt(s, option, optval, optvallen);
}
void* zmq_socket(void* context, int type) { return Zmq().zmq_socket(context, type); }
int zmq_socket_monitor(void* s, const char* addr, int events) { return Zmq().zmq_socket_monitor(s, addr, events); }
const char* zmq_strerror(int errnum) { return Zmq().zmq_strerror(errnum); }
char* zmq_z85_encode(char* dest, const uint8_t* data, size_t size) { return Zmq().zmq_z85_encode(dest, data, size); }

}  // extern "C"
