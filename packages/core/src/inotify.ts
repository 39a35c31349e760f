// Which file systems a watch can trust: the fact fs-local's directory watch and index-local's tree
// watcher both decide by (docs/design.md#a-watched-tree-needs-no-link-stats).

/**
 * statfs's magic numbers of the Linux file systems whose every change, whoever made it, the kernel
 * reports to inotify here: ext2–4, XFS, Btrfs, tmpfs, ramfs, overlayfs, ZFS, F2FS, bcachefs. A
 * network or FUSE file system changed from another host makes no event on this one.
 */
const EVENTFUL_TYPES: ReadonlySet<number> = new Set([
  0xef53, 0x58465342, 0x9123683e, 0x01021994, 0x858458f6, 0x794c7630, 0x2fc12fc1, 0xf2f52010, 0xca451a4e,
])

/** True when a file system of this statfs type reports every change to inotify, so a watch of it can vouch for a tree. */
export function reportsEveryChange(statfsType: number): boolean {
  return EVENTFUL_TYPES.has(statfsType)
}
