package host

import (
	"os"

	"github.com/agent-dev/agent/loop"
	"github.com/agent-dev/agent/tools"
	"github.com/agent-dev/agent/tools/fs"
	"github.com/agent-dev/agent/tools/shell"
	"github.com/agent-dev/agent/tools/web"
)

// resolve reads the config file o names (or the default one) and resolves
// the settings, as Open does.
func resolve(o *Flags, getenv func(string) string) (Settings, error) {
	path, explicit := o.ConfigPath, o.ConfigPath != ""
	if !explicit {
		path = defaultConfigPath(getenv)
	}
	fc, err := loadFileConfig(path, explicit)
	if err != nil {
		return Settings{ConfigPath: path}, err
	}
	return resolveSettings(fc, path, o, getenv)
}

// builtinDef is the definition of the built-in tool name as the agent
// builds it (its real effects and summary), for the policy's tests.
func builtinDef(name string) tools.Definition {
	dir, err := os.MkdirTemp("", "builtin-defs-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	root, err := os.OpenRoot(dir)
	if err != nil {
		panic(err)
	}
	defer root.Close()
	all := append(fs.ToolsWith(root, fs.Options{}), shell.New(shell.Config{Dir: dir}), web.New(web.Config{}))
	for _, t := range all {
		if def := t.Definition(); def.Name == name {
			return def
		}
	}
	panic("no built-in tool " + name)
}

// judge rules on a call of the built-in tool name with p.
func (p policy) judge(name, arguments string) ruling {
	return p.decide(builtinDef(name), arguments)
}

// headlessApproval is the approval of a headless run with p.
func headlessApproval(p policy) loop.ApproveFunc {
	mode := p.mode
	return newApproval(p, func() string { return mode }, Refusal(mode)).approve
}
