/* lustre_abi.h — Lustre's user-space ABI for changelogs and FIDs, byte for byte.
 *
 * The structures, enums and function signatures that liblustreapi exposes for reading
 * changelogs and resolving FIDs, written from Lustre's documented user ABI
 * (lustre_user.h / lustreapi.h). fathom's Lustre source calls a real liblustreapi through
 * these declarations (dlopen), and fathom-lustre-sim's liblustreapi exports them; the
 * layouts must therefore never change. C-compatible; no fathom types here.
 */
#ifndef FATHOM_LUSTRE_ABI_H
#define FATHOM_LUSTRE_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct lu_fid {
  uint64_t f_seq;
  uint32_t f_oid;
  uint32_t f_ver;
} __attribute__((packed));

enum changelog_rec_type {
  CL_NONE = -1,
  CL_MARK = 0,
  CL_CREATE = 1,
  CL_MKDIR = 2,
  CL_HARDLINK = 3,
  CL_SOFTLINK = 4,
  CL_MKNOD = 5,
  CL_UNLINK = 6,
  CL_RMDIR = 7,
  CL_RENAME = 8,
  CL_EXT = 9,
  CL_OPEN = 10,
  CL_CLOSE = 11,
  CL_LAYOUT = 12,
  CL_TRUNC = 13,
  CL_SETATTR = 14,
  CL_SETXATTR = 15,
  CL_HSM = 16,
  CL_MTIME = 17,
  CL_CTIME = 18,
  CL_ATIME = 19,
  CL_MIGRATE = 20,
  CL_FLRW = 21,
  CL_RESYNC = 22,
  CL_GETXATTR = 23,
  CL_DN_OPEN = 24,
  CL_LAST
};

/* Low 12 bits of cr_flags: per-type flags; high bits: which extensions follow. */
#define CLF_FLAGSHIFT 12
enum changelog_rec_flags {
  CLF_VERSION = 0x1000,
  CLF_RENAME = 0x2000,
  CLF_JOBID = 0x4000,
  CLF_EXTRA_FLAGS = 0x8000,
  CLF_SUPPORTED = CLF_VERSION | CLF_RENAME | CLF_JOBID | CLF_EXTRA_FLAGS,
  CLF_FLAGMASK = (1U << CLF_FLAGSHIFT) - 1,
  CLF_VERMASK = ~CLF_FLAGMASK
};

#define CLF_UNLINK_LAST 0x0001        /* UNLNK/RMDIR: the last link went */
#define CLF_UNLINK_HSM_EXISTS 0x0002
#define CLF_RENAME_LAST 0x0001        /* RENME: the overwritten target lost its last link */
#define CLF_RENAME_LAST_EXISTS 0x0002

enum changelog_rec_extra_flags {
  CLFE_INVALID = 0,
  CLFE_UIDGID = 0x0001,
  CLFE_NID = 0x0002,
  CLFE_OPEN = 0x0004,
  CLFE_XATTR = 0x0008,
  CLFE_NID_BE = 0x0010,
  CLFE_SUPPORTED = CLFE_UIDGID | CLFE_NID | CLFE_OPEN | CLFE_XATTR | CLFE_NID_BE
};

enum changelog_send_flag {
  CHANGELOG_FLAG_FOLLOW = 0x01,
  CHANGELOG_FLAG_BLOCK = 0x02,
  CHANGELOG_FLAG_JOBID = 0x04,
  CHANGELOG_FLAG_EXTRA_FLAGS = 0x08,
  CHANGELOG_FLAG_NID_BE = 0x10
};

enum changelog_send_extra_flag {
  CHANGELOG_EXTRA_FLAG_UIDGID = CLFE_UIDGID,
  CHANGELOG_EXTRA_FLAG_NID = CLFE_NID,
  CHANGELOG_EXTRA_FLAG_OMODE = CLFE_OPEN,
  CHANGELOG_EXTRA_FLAG_XATTR = CLFE_XATTR
};

#define LUSTRE_JOBID_SIZE 32
#define LUSTRE_XATTR_NAME_MAX 255
#define LUSTRE_NAME_MAX 255

/* Record types that cannot be masked, all types, and the default mask (no ATIME, OPEN,
 * GETXATTR, DN_OPEN). */
#define CHANGELOG_MINMASK (1ULL << CL_MARK)
#define CHANGELOG_ALLMASK ((1ULL << CL_LAST) - 1)
#define CHANGELOG_DEFMASK                                                                  \
  (CHANGELOG_ALLMASK &                                                                     \
   ~((1ULL << CL_ATIME) | (1ULL << CL_OPEN) | (1ULL << CL_GETXATTR) | (1ULL << CL_DN_OPEN)))

/* The fixed head of every record (64 bytes). Extensions follow in flag order (rename,
 * jobid, extra flags), then extra-flag order (uid/gid, nid, open mode, xattr), then
 * cr_namelen bytes of name; for a rename: "newname\0oldname". */
struct changelog_rec {
  uint16_t cr_namelen;
  uint16_t cr_flags;
  uint32_t cr_type;
  uint64_t cr_index;
  uint64_t cr_prev;
  uint64_t cr_time; /* seconds << 30 | nanoseconds */
  union {
    struct lu_fid cr_tfid;
    uint32_t cr_markerflags;
  };
  struct lu_fid cr_pfid;
} __attribute__((packed));

struct changelog_ext_rename {
  struct lu_fid cr_sfid;
  struct lu_fid cr_spfid;
};

struct changelog_ext_jobid {
  char cr_jobid[LUSTRE_JOBID_SIZE];
};

struct changelog_ext_extra_flags {
  uint64_t cr_extra_flags;
};

struct changelog_ext_uidgid {
  uint64_t cr_uid;
  uint64_t cr_gid;
};

struct changelog_ext_nid {
  uint64_t cr_nid;
  uint64_t extra;
  uint32_t padding;
};

struct changelog_ext_openmode {
  uint32_t cr_openflags;
};

struct changelog_ext_xattr {
  char cr_xattr[LUSTRE_XATTR_NAME_MAX + 1];
};

/* liblustreapi entry points fathom uses (signatures as in lustreapi.h). Return 0 or a
 * negative errno; llapi_changelog_recv returns 1 at the end of the log (non-follow mode). */
typedef int (*llapi_changelog_start_fn)(void** priv, enum changelog_send_flag flags,
                                        const char* mdtname, long long startrec);
typedef int (*llapi_changelog_fini_fn)(void** priv);
typedef int (*llapi_changelog_recv_fn)(void* priv, struct changelog_rec** rech);
typedef int (*llapi_changelog_free_fn)(struct changelog_rec** rech);
typedef int (*llapi_changelog_clear_fn)(const char* mdtname, const char* idstr, long long endrec);
typedef int (*llapi_changelog_set_xflags_fn)(void* priv,
                                             enum changelog_send_extra_flag extra_flags);
typedef int (*llapi_changelog_get_fd_fn)(void* priv);
typedef int (*llapi_fid2path_fn)(const char* device, const char* fidstr, char* path,
                                 int pathlen, long long* recno, int* linkno);
typedef int (*llapi_path2fid_fn)(const char* path, struct lu_fid* fid);
/* The name of the Lustre file system `pathname` is on, into `fsname` (at least
 * LUSTRE_MAXFSNAME + 1 bytes); -ENODEV when it is on none. */
typedef int (*llapi_search_fsname_fn)(const char* pathname, char* fsname);
#define LUSTRE_MAXFSNAME 8

/* Layouts: the lustre.lov / trusted.lov extended attribute of a regular file is a
 * lov_user_md_v1 (no pool) or lov_user_md_v3 (with a pool name), followed by
 * lmm_stripe_count lov_user_ost_data_v1 entries, all little-endian on x86. In the xattr
 * the 16-bit field after lmm_stripe_count is the layout generation (lmm_layout_gen). */
#define LOV_MAXPOOLNAME 15
#define LOV_USER_MAGIC_V1 0x0BD10BD0
#define LOV_USER_MAGIC_V3 0x0BD30BD0
#define LOV_PATTERN_RAID0 0x001
#define XATTR_LUSTRE_LOV "lustre.lov"

struct lov_user_ost_data_v1 {
  uint64_t l_ost_oi_id;   /* struct ost_id: the object's id and sequence */
  uint64_t l_ost_oi_seq;
  uint32_t l_ost_gen;
  uint32_t l_ost_idx;     /* the OST index */
} __attribute__((packed));

struct lov_user_md_v1 {
  uint32_t lmm_magic;
  uint32_t lmm_pattern;
  uint64_t lmm_oi_id;
  uint64_t lmm_oi_seq;
  uint32_t lmm_stripe_size;
  uint16_t lmm_stripe_count;
  uint16_t lmm_layout_gen;  /* lmm_stripe_offset in a setstripe request */
  /* struct lov_user_ost_data_v1 lmm_objects[] follow */
} __attribute__((packed));

struct lov_user_md_v3 {
  uint32_t lmm_magic;
  uint32_t lmm_pattern;
  uint64_t lmm_oi_id;
  uint64_t lmm_oi_seq;
  uint32_t lmm_stripe_size;
  uint16_t lmm_stripe_count;
  uint16_t lmm_layout_gen;
  char lmm_pool_name[LOV_MAXPOOLNAME + 1];
  /* struct lov_user_ost_data_v1 lmm_objects[] follow */
} __attribute__((packed));

/* llapi_layout_*: an opaque layout read from a file (lustreapi.h). */
struct llapi_layout;
typedef struct llapi_layout* (*llapi_layout_get_by_path_fn)(const char* path, uint32_t flags);
typedef void (*llapi_layout_free_fn)(struct llapi_layout* layout);
typedef int (*llapi_layout_stripe_count_get_fn)(const struct llapi_layout* layout, uint64_t* count);
typedef int (*llapi_layout_stripe_size_get_fn)(const struct llapi_layout* layout, uint64_t* size);
typedef int (*llapi_layout_pool_name_get_fn)(const struct llapi_layout* layout, char* pool_name,
                                             size_t pool_name_len);
typedef int (*llapi_layout_ost_index_get_fn)(const struct llapi_layout* layout, int stripe_number,
                                             uint64_t* index);

#ifdef __cplusplus
}
#endif

#endif /* FATHOM_LUSTRE_ABI_H */
