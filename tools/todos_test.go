package tools

import "testing"

func TestUnfinishedTodos(t *testing.T) {
	for _, c := range []struct {
		name  string
		items []Todo
		want  bool
	}{
		{"none", nil, false},
		{"all completed", []Todo{{"a", TodoCompleted}, {"b", TodoCompleted}}, false},
		{"one pending", []Todo{{"a", TodoCompleted}, {"b", TodoPending}}, true},
		{"one in progress", []Todo{{"a", TodoInProgress}}, true},
	} {
		if got := UnfinishedTodos(c.items); got != c.want {
			t.Errorf("%s: UnfinishedTodos = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestTodosReadsTheMeta(t *testing.T) {
	list := []Todo{{"a", TodoPending}}
	for _, c := range []struct {
		name string
		meta map[string]any
		ok   bool
	}{
		{"the list", map[string]any{MetaTodos: list}, true},
		{"no meta", nil, false},
		{"another type", map[string]any{MetaTodos: []map[string]string{{"content": "a"}}}, false},
	} {
		items, ok := Todos(c.meta)
		if ok != c.ok || (ok && len(items) != 1) {
			t.Errorf("%s: Todos = %v, %v", c.name, items, ok)
		}
	}
}
