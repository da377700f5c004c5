#define _GNU_SOURCE
#include "CReceiveTap.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

typedef ssize_t (*recv_fn)(int, void *, size_t, int);

static recv_fn original_recv;
static rh_receive_tap_fn tap_function;
static __thread void *thread_context;

static ssize_t tapped_recv(int fd, void *buffer, size_t length, int flags) {
    void *context = thread_context;
    rh_receive_tap_fn tap = __atomic_load_n(&tap_function, __ATOMIC_ACQUIRE);
    if (context != NULL && tap != NULL) {
        return tap(context, fd, buffer, length, flags);
    }
    return rh_receive_tap_original(fd, buffer, length, flags);
}

ssize_t rh_receive_tap_original(int fd, void *buffer, size_t length, int flags) {
    recv_fn original = __atomic_load_n(&original_recv, __ATOMIC_ACQUIRE);
    return (original != NULL ? original : recv)(fd, buffer, length, flags);
}

void rh_receive_tap_set_thread_context(void *context) {
    thread_context = context;
}

/// The descriptors the library closed on this thread since `rh_close_guard_begin`, while
/// the guard is up (`fds` is NULL when it is down).
static __thread struct {
    int *fds;
    size_t count;
    size_t capacity;
} guarded;

#if __SIZEOF_POINTER__ == 8

/// The loaded object that contains an address, with its dynamic section and RELRO range.
struct loaded_object {
    uintptr_t address;
    uintptr_t base;
    const ElfW(Dyn) *dynamic;
    uintptr_t relro_start;
    uintptr_t relro_end;
};

static int find_containing_object(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct loaded_object *object = data;
    int contains = 0;
    for (ElfW(Half) index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        uintptr_t start = info->dlpi_addr + header->p_vaddr;
        if (header->p_type == PT_LOAD && object->address >= start && object->address < start + header->p_memsz) {
            contains = 1;
        }
    }
    if (!contains) {
        return 0;
    }
    object->base = info->dlpi_addr;
    for (ElfW(Half) index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type == PT_DYNAMIC) {
            object->dynamic = (const ElfW(Dyn) *)(info->dlpi_addr + header->p_vaddr);
        } else if (header->p_type == PT_GNU_RELRO) {
            object->relro_start = info->dlpi_addr + header->p_vaddr;
            object->relro_end = object->relro_start + header->p_memsz;
        }
    }
    return 1;
}

/// glibc relocates the pointers of the dynamic section in place on most targets; where it
/// does not (read-only dynamic sections), they are still offsets from the base.
static uintptr_t dynamic_pointer(uintptr_t base, ElfW(Addr) value) {
    return value < base ? base + value : value;
}

static int write_slot(void **slot, void *value, const struct loaded_object *object) {
    long page_size = sysconf(_SC_PAGESIZE);
    uintptr_t page = (uintptr_t)slot & ~((uintptr_t)page_size - 1);
    int in_relro = (uintptr_t)slot >= object->relro_start && (uintptr_t)slot < object->relro_end;
    if (mprotect((void *)page, (size_t)page_size, PROT_READ | PROT_WRITE) != 0) {
        return -1;
    }
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
    if (in_relro) {
        mprotect((void *)page, (size_t)page_size, PROT_READ);
    }
    return 0;
}

static int patch_relocations(const ElfW(Rela) *relocations, size_t bytes, const ElfW(Sym) *symbols,
                             const char *names, const struct loaded_object *object, const char *name,
                             void *replacement, int *patched) {
    size_t count = bytes / sizeof(ElfW(Rela));
    for (size_t index = 0; index < count; index++) {
        size_t symbol = ELF64_R_SYM(relocations[index].r_info);
        if (symbol == 0 || strcmp(names + symbols[symbol].st_name, name) != 0) {
            continue;
        }
        void **slot = (void **)(object->base + relocations[index].r_offset);
        if (write_slot(slot, replacement, object) != 0) {
            return -2;
        }
        *patched += 1;
    }
    return 0;
}

/// Points the imports of `name` by the shared object that defines `anchor_symbol` at
/// `replacement` (what it calls must be set before: the first redirected call may come at
/// once). 0 on success, -1 when the object or the import is not found, -2 when a slot could
/// not be written.
static int redirect_import(const char *anchor_symbol, const char *name, void *replacement) {
    void *anchor = dlsym(RTLD_DEFAULT, anchor_symbol);
    if (anchor == NULL) {
        return -1;
    }
    struct loaded_object object = {.address = (uintptr_t)anchor};
    if (!dl_iterate_phdr(find_containing_object, &object) || object.dynamic == NULL) {
        return -1;
    }
    const ElfW(Sym) *symbols = NULL;
    const char *names = NULL;
    const ElfW(Rela) *plt = NULL, *data = NULL;
    size_t plt_bytes = 0, data_bytes = 0;
    for (const ElfW(Dyn) *entry = object.dynamic; entry->d_tag != DT_NULL; entry++) {
        switch (entry->d_tag) {
        case DT_SYMTAB: symbols = (const ElfW(Sym) *)dynamic_pointer(object.base, entry->d_un.d_ptr); break;
        case DT_STRTAB: names = (const char *)dynamic_pointer(object.base, entry->d_un.d_ptr); break;
        case DT_JMPREL: plt = (const ElfW(Rela) *)dynamic_pointer(object.base, entry->d_un.d_ptr); break;
        case DT_PLTRELSZ: plt_bytes = entry->d_un.d_val; break;
        case DT_RELA: data = (const ElfW(Rela) *)dynamic_pointer(object.base, entry->d_un.d_ptr); break;
        case DT_RELASZ: data_bytes = entry->d_un.d_val; break;
        case DT_PLTREL:
            if (entry->d_un.d_val != DT_RELA) return -1;
            break;
        default: break;
        }
    }
    if (symbols == NULL || names == NULL) {
        return -1;
    }
    int patched = 0;
    if (plt != NULL && patch_relocations(plt, plt_bytes, symbols, names, &object, name, replacement, &patched) != 0) {
        return -2;
    }
    if (data != NULL && patch_relocations(data, data_bytes, symbols, names, &object, name, replacement, &patched) != 0) {
        return -2;
    }
    return patched > 0 ? 0 : -1;
}

int rh_receive_tap_install(const char *anchor_symbol, rh_receive_tap_fn tap) {
    recv_fn resolved = (recv_fn)dlsym(RTLD_DEFAULT, "recv");
    if (resolved == NULL) {
        return -1;
    }
    __atomic_store_n(&original_recv, resolved, __ATOMIC_RELEASE);
    __atomic_store_n(&tap_function, tap, __ATOMIC_RELEASE);
    return redirect_import(anchor_symbol, "recv", (void *)tapped_recv);
}

// The close guard.

typedef int (*close_fn)(int);

static close_fn original_close;

static int guarded_close(int fd) {
    close_fn original = __atomic_load_n(&original_close, __ATOMIC_ACQUIRE);
    if (guarded.fds != NULL) {
        for (size_t index = 0; index < guarded.count; index++) {
            if (guarded.fds[index] == fd) {
                return 0;
            }
        }
        if (guarded.count == guarded.capacity) {
            size_t capacity = guarded.capacity * 2;
            int *grown = realloc(guarded.fds, capacity * sizeof(int));
            if (grown != NULL) {
                guarded.fds = grown;
                guarded.capacity = capacity;
            }
        }
        if (guarded.count < guarded.capacity) {
            guarded.fds[guarded.count++] = fd;
        }
    }
    return (original != NULL ? original : close)(fd);
}

int rh_close_guard_install(const char *anchor_symbol) {
    close_fn resolved = (close_fn)dlsym(RTLD_DEFAULT, "close");
    if (resolved == NULL) {
        return -1;
    }
    __atomic_store_n(&original_close, resolved, __ATOMIC_RELEASE);
    return redirect_import(anchor_symbol, "close", (void *)guarded_close);
}

#else

// 32-bit targets use Elf32_Rel relocations, which this file does not read: no tap, no guard.
int rh_receive_tap_install(const char *anchor_symbol, rh_receive_tap_fn tap) {
    (void)anchor_symbol;
    (void)tap;
    return -1;
}

int rh_close_guard_install(const char *anchor_symbol) {
    (void)anchor_symbol;
    return -1;
}

#endif

void rh_close_guard_begin(void) {
    if (guarded.fds == NULL) {
        guarded.fds = malloc(64 * sizeof(int));
        guarded.count = 0;
        guarded.capacity = guarded.fds != NULL ? 64 : 0;
    }
}

void rh_close_guard_end(void) {
    free(guarded.fds);
    guarded.fds = NULL;
    guarded.count = 0;
    guarded.capacity = 0;
}
