package skills

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// A repository's skill lies in the repository: a skill folder or a
// SKILL.md that is a symlink out of it does not make read_file (or the
// skill tool) read outside the working directory.
func TestARepositorysSkillCannotLeadOutOfIt(t *testing.T) {
	repo, outside, user := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(outside, "SKILL.md"), "---\ndescription: someone's notes\n---\nsecret body")
	write(t, filepath.Join(outside, "id_rsa"), "PRIVATE KEY")
	write(t, filepath.Join(outside, "blog", "post.md"), "---\ndescription: a draft\n---\nprivate draft")
	skillsDir := filepath.Join(repo, ".claude", "skills")
	write(t, filepath.Join(skillsDir, "inside", "SKILL.md"), "---\ndescription: fine\n---\nbody")
	write(t, filepath.Join(skillsDir, "post", "x"), "")
	if err := os.Symlink(outside, filepath.Join(skillsDir, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "blog", "post.md"), filepath.Join(skillsDir, "post", "SKILL.md")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(user, "mine", "SKILL.md"), "---\ndescription: the user's\n---\nbody")

	skills, warnings := Load(Dir{Path: skillsDir, Project: true}, Dir{Path: user})
	var names []string
	for _, s := range skills {
		names = append(names, s.Name)
	}
	if !slices.Equal(names, []string{"inside", "mine"}) {
		t.Errorf("skills %q, want the repository's skills that lead out of it left out", names)
	}
	if len(warnings) != 2 || !strings.Contains(strings.Join(warnings, "\n"), "outside") {
		t.Errorf("warnings %q, want both named", warnings)
	}
	dirs := Dirs(skills)
	for _, d := range dirs {
		if strings.HasPrefix(d, repo) {
			t.Errorf("read_file may read %s: a repository's skill is in the working directory already", d)
		}
	}
	if len(dirs) != 1 {
		t.Errorf("dirs %q, want the user's skill only", dirs)
	}

	// Swapped for a symlink during the session: the body is not read.
	in := skills[0]
	os.Remove(in.Path)
	if err := os.Symlink(filepath.Join(outside, "SKILL.md"), in.Path); err != nil {
		t.Fatal(err)
	}
	if body, err := in.Body(); err == nil || strings.Contains(body, "secret") {
		t.Errorf("Body() = %q, %v: read through a symlink out of the repository", body, err)
	}
}

// A user's skill folder is often a symlink (skills shared from a dotfiles
// repository): the tool still lists its files.
func TestASymlinkedSkillFolderListsItsFiles(t *testing.T) {
	real, user := t.TempDir(), t.TempDir()
	write(t, filepath.Join(real, "SKILL.md"), "---\ndescription: forms\n---\nRun forms.py.")
	write(t, filepath.Join(real, "forms.py"), "print(1)\n")
	if err := os.Symlink(real, filepath.Join(user, "pdf")); err != nil {
		t.Fatal(err)
	}
	skills, _ := Load(Dir{Path: user})
	if len(skills) != 1 {
		t.Fatalf("skills %+v", skills)
	}
	files := listFiles(t.Context(), skills[0].Dir)
	if len(files) != 1 || files[0] != filepath.Join(user, "pdf", "forms.py") {
		t.Errorf("files %q, want forms.py under the skill's folder", files)
	}
}
