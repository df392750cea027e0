package web

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ledongthuc/pdf"
)

// pdfText extracts a PDF's text page by page with github.com/ledongthuc/pdf
// (pure Go, no program run). The library panics on some malformed files;
// a panic, like an error, gives a description instead of text. A PDF cut
// at the size cap has no cross-reference table and is described too.
func pdfText(data []byte) (c content) {
	describe := func(why string) content {
		return content{kind: "pdf", text: fmt.Sprintf("[PDF, %s: its text could not be extracted (%s)]", size(len(data), false), why)}
	}
	defer func() {
		if r := recover(); r != nil {
			c = describe(fmt.Sprint(r))
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return describe(err.Error())
	}
	var b strings.Builder
	fonts := map[string]*pdf.Font{}
	for i := 1; i <= r.NumPage(); i++ {
		p := r.Page(i)
		if p.V.IsNull() {
			continue
		}
		for _, name := range p.Fonts() {
			if _, ok := fonts[name]; !ok {
				f := p.Font(name)
				fonts[name] = &f
			}
		}
		text, err := p.GetPlainText(fonts)
		if err != nil {
			continue
		}
		fmt.Fprintf(&b, "\n\n--- page %d ---\n\n%s", i, strings.TrimSpace(text))
	}
	if strings.TrimSpace(b.String()) == "" {
		return describe("no text layer: a scanned document?")
	}
	return content{kind: "pdf", text: strings.TrimSpace(fmt.Sprintf("PDF, %d pages%s", r.NumPage(), b.String()))}
}
