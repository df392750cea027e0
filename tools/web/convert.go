package web

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"codeberg.org/readeck/go-readability/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/base"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/commonmark"
	"github.com/JohannesKaufmann/html-to-markdown/v2/plugin/table"
	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"

	"github.com/agent-dev/agent/media"
)

// content is a page turned into text the model reads: its kind ("html",
// "text", "json", "pdf", or a description's), its title when it has one.
type content struct {
	kind  string
	title string
	text  string
}

// mediaType is the page's type: the Content-Type header's, else sniffed
// from its first bytes.
func mediaType(p *page) string {
	mt, _, err := mime.ParseMediaType(p.contentType)
	if err != nil || mt == "" || mt == "application/octet-stream" {
		mt, _, _ = mime.ParseMediaType(http.DetectContentType(p.body))
	}
	return strings.ToLower(mt)
}

// convert turns p's body into text: HTML through a readability pass (the
// article without navigation, when one is found) into Markdown; text, JSON
// and other textual types as they are (JSON indented); a PDF's text; any
// other type described.
func convert(p *page) content {
	mt := mediaType(p)
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		return htmlToMarkdown(p)
	case mt == "application/pdf":
		return pdfText(p.body)
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		var buf bytes.Buffer
		if json.Indent(&buf, p.body, "", "  ") == nil && !p.cut {
			return content{kind: "json", text: buf.String()}
		}
		return content{kind: "json", text: toUTF8(p)}
	case strings.HasPrefix(mt, "text/") || textual(mt):
		return content{kind: "text", text: toUTF8(p)}
	}
	if mt != "" && !strings.HasPrefix(mt, "image/") && utf8.Valid(p.body) && !bytes.ContainsRune(p.body, 0) {
		return content{kind: "text", text: string(p.body)}
	}
	return content{kind: mt, text: fmt.Sprintf("[%s, %s, not shown: web_fetch reads HTML, text, JSON and PDF]", cmpOr(mt, "unknown type"), size(len(p.body), p.cut))}
}

// textual reports whether an application/ type is text in practice.
func textual(mt string) bool {
	switch mt {
	case "application/xml", "application/javascript", "application/x-yaml", "application/yaml",
		"application/toml", "application/x-sh", "application/ecmascript", "application/graphql":
		return true
	}
	return strings.HasSuffix(mt, "+xml")
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// size reads n bytes for people, "at least" when the body was cut.
func size(n int, cut bool) string {
	s := media.Size(n)
	if cut {
		s = "over " + s
	}
	return s
}

// toUTF8 decodes the body from the charset its Content-Type names (or
// that its bytes suggest) into UTF-8.
func toUTF8(p *page) string {
	if utf8.Valid(p.body) {
		return string(p.body)
	}
	r, err := charset.NewReader(bytes.NewReader(p.body), p.contentType)
	if err != nil {
		return strings.ToValidUTF8(string(p.body), "\uFFFD")
	}
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(r); err != nil {
		return strings.ToValidUTF8(string(p.body), "\uFFFD")
	}
	return buf.String()
}

// htmlToMarkdown parses the page, keeps its article when readability finds
// one (else the whole body) and converts that to Markdown, links made
// absolute against the page's URL.
func htmlToMarkdown(p *page) content {
	doc, err := html.Parse(strings.NewReader(toUTF8(p)))
	if err != nil {
		return content{kind: "html", text: toUTF8(p)}
	}
	node, title := doc, ""
	if art, err := readability.FromDocument(cloneTree(doc), p.url); err == nil && art.Node != nil {
		title = art.Title()
		if len(innerText(art.Node)) > 200 {
			node = art.Node
		}
	}
	conv := converter.NewConverter(converter.WithPlugins(base.NewBasePlugin(), commonmark.NewCommonmarkPlugin(), table.NewTablePlugin()))
	md, err := conv.ConvertNode(node, converter.WithDomain(p.url.String()))
	if err != nil {
		return content{kind: "html", title: title, text: toUTF8(p)}
	}
	return content{kind: "html", title: title, text: strings.TrimSpace(string(md))}
}

// cloneTree parses nothing again: readability changes the tree it is
// given, so it gets a deep copy.
func cloneTree(n *html.Node) *html.Node {
	c := &html.Node{Type: n.Type, DataAtom: n.DataAtom, Data: n.Data, Namespace: n.Namespace, Attr: append([]html.Attribute(nil), n.Attr...)}
	for ch := n.FirstChild; ch != nil; ch = ch.NextSibling {
		c.AppendChild(cloneTree(ch))
	}
	return c
}

// innerText is the text under n, without markup.
func innerText(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return strings.TrimSpace(b.String())
}
