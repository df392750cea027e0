package cmd

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agent-dev/agent/media"
	"github.com/agent-dev/agent/providers"
)

// maxImageFile bounds an image file a person attaches, in bytes.
const maxImageFile = 32 << 20

// attachImageFiles appends to msg each image file of paths (the person's
// --image, a pasted path): a line naming it and its size, then the
// picture scaled down to what providers take (media.Default; a model that
// takes no images gets its description). A path that is no readable
// image is a usage error naming it.
func attachImageFiles(msg *providers.Message, paths []string) error {
	for _, p := range paths {
		img, err := readImageFile(p)
		if err != nil {
			return usagef("--image %s: %w", p, err)
		}
		attachImage(msg, filepath.Base(p), img)
	}
	return nil
}

// readImageFile reads and scales the image file at path.
func readImageFile(path string) (media.Image, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return media.Image{}, err
	}
	if fi.Size() > maxImageFile {
		return media.Image{}, fmt.Errorf("%s, more than %s", media.Size(int(fi.Size())), media.Size(maxImageFile))
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return media.Image{}, err
	}
	return media.Fit(data, media.Default)
}

// attachImage appends img to msg after a line naming it.
func attachImage(msg *providers.Message, name string, img media.Image) {
	msg.Parts = append(msg.Parts,
		providers.Text{Text: fmt.Sprintf("\n\n[image %s: %s]", name, img.Note())},
		providers.Image{MediaType: img.MediaType, Data: img.Data})
}
