package fs

import (
	"context"
	"os"
)

// Files calls visit with the slash path, relative to the root, of each
// regular file below the root that list_files would list: .git, what the
// .gitignore files exclude, symlinks and special files are skipped. Files
// come in directory order. It returns ctx.Err() once ctx is cancelled, or
// the first error visit returns.
func Files(ctx context.Context, root *os.Root, visit func(rel string) error) error {
	return walk(ctx, root, ".", func(f walkFile) error { return visit(f.rel) })
}
