package view

import (
	"bytes"
	"html/template"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"

	"github.com/ub-bench/ub/reports/visible"
)

type indexData struct {
	frame
	Report template.HTML // report.md rendered: every text escaped by goldmark, no raw HTML
	Sims   []crumb       // UserBench rows, for a workspace without a report
	Users  []crumb
}

// indexData renders the report: report.md as HTML (goldmark, which
// escapes every text and leaves raw HTML out), its figures as the SVG the
// report drew, and each table row that names a simulator linked to its
// evidence.
func (s *Site) indexData(l linker) (indexData, error) {
	d := indexData{frame: s.frame(l, "Report")}
	d.Crumbs = nil
	for _, sim := range sortedKeys(s.ubSims) {
		for _, c := range s.conditions(sim) {
			d.Sims = append(d.Sims, crumb{sim + " " + c, l.link(page(KindUBSim, "sim", sim, "cond", c))})
		}
	}
	for _, u := range sortedKeys(s.userSims) {
		d.Users = append(d.Users, crumb{u, l.link(page(KindFidSim, "sim", u))})
	}
	if len(s.report) == 0 {
		return d, nil
	}
	src := []byte(visible.Text(string(s.report)))
	md := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithParserOptions(parser.WithAutoHeadingID()))
	doc := md.Parser().Parse(text.NewReader(src))
	// fig and caption are the figure the walk is under (its image's name)
	// and the paragraph after the image: a table below names its sweep's
	// setting there.
	var fig, caption string
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch x := n.(type) {
		case *ast.Heading:
			fig, caption = "", ""
		case *ast.Paragraph:
			if fig != "" && caption == "" && !hasImage(x) {
				caption = cellText(x, src)
			}
		case *ast.Image:
			dest := string(x.Destination)
			fig, caption = strings.TrimSuffix(strings.TrimSuffix(dest, ".png"), ".svg"), ""
			if figureFile(dest) {
				if strings.HasSuffix(dest, ".png") && s.hasFigure(strings.TrimSuffix(dest, ".png")+".svg") {
					dest = strings.TrimSuffix(dest, ".png") + ".svg"
				}
				x.Destination = []byte(l.figure(dest))
				x.SetAttributeString("class", []byte("figure"))
			}
		case *ast.Link:
			if dest := string(x.Destination); figureFile(dest) && s.hasFigure(dest) {
				x.Destination = []byte(l.figure(dest))
			}
		case *east.Table:
			s.linkTable(x, src, l, fig, caption)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	if err != nil {
		return d, err
	}
	var buf bytes.Buffer
	if err := md.Renderer().Render(&buf, src, doc); err != nil {
		return d, err
	}
	d.Report = template.HTML(buf.String()) // goldmark escaped every text; raw HTML is omitted without WithUnsafe
	return d, nil
}

// hasImage is whether a paragraph holds an image (a figure's own line).
func hasImage(p ast.Node) bool {
	for c := p.FirstChild(); c != nil; c = c.NextSibling() {
		if _, ok := c.(*ast.Image); ok {
			return true
		}
	}
	return false
}

func (s *Site) hasFigure(name string) bool {
	for _, f := range s.figures {
		if f == name {
			return true
		}
	}
	return false
}

// cellText is the text of a table cell as a reader sees it.
func cellText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch t := c.(type) {
		case *ast.Text:
			b.Write(t.Segment.Value(src))
		case *ast.String:
			b.Write(t.Value)
		}
		return ast.WalkContinue, nil
	})
	return unescape(strings.TrimSpace(b.String()))
}

// unescape drops Markdown's backslash before ASCII punctuation (the
// report escapes _, |, [, ... in its tables), as a reader sees the text.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", s[i+1]) >= 0 {
			i++
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// linkTable links each row of a table that names a simulator: a UserBench
// simulator with its condition to its developers, a user simulator (with
// its domain when the row has one) to its episodes, an example episode to
// its page, a row of the review's error share to the reviewed episodes of
// its domain, a sweep's setting (under figure fig, whose caption names the
// sweep's simulator) to its moments, a case study's moment to its page.
func (s *Site) linkTable(t *east.Table, src []byte, l linker, fig, caption string) {
	col := map[string]int{}
	var rows []ast.Node
	for r := t.FirstChild(); r != nil; r = r.NextSibling() {
		if _, ok := r.(*east.TableHeader); ok {
			i := 0
			for c := r.FirstChild(); c != nil; c = c.NextSibling() {
				col[cellText(c, src)] = i
				i++
			}
			continue
		}
		rows = append(rows, r)
	}
	simCol, ok := -1, false
	for _, name := range []string{"simulator", "user simulator", "user_sim", "U*(q)"} {
		if simCol, ok = col[name]; ok {
			break
		}
	}
	if !ok {
		simCol = -1
	}
	condCol, hasCond := col["condition"]
	domCol, hasDom := col["domain"]
	epCol, hasEp := col["example episode"]
	famCol, hasFam := col["family"]
	probeCol, hasProbe := col["probe"]
	_, isShare := col["simulator error"]
	var keys []Page // the compare page of each row against the first, by row (nil: no simulator)
	var header ast.Node
	if h, ok := t.FirstChild().(*east.TableHeader); ok {
		header = h
	}
	rowCells := func(r int) []cellAt {
		var cs []cellAt
		for c := rows[r].FirstChild(); c != nil; c = c.NextSibling() {
			cs = append(cs, cellAt{cellText(c, src), c})
		}
		return cs
	}
	switch fig {
	case "context-scaling", "history-sweep", "context-heatmap":
		s.linkSweep(fig, caption, col, rowCells, len(rows), l)
	case "case-study":
		if mc, ok := col["moment"]; ok {
			points := s.caseMoments()
			for r := range rows {
				if cs := rowCells(r); mc < len(cs) && points[cs[mc].text] != "" {
					cs[mc].link(l.link(page(KindMoment, "point", points[cs[mc].text], "n", strconv.Itoa(s.n), "k", strconv.Itoa(s.k))))
				}
			}
		}
	}
	for _, r := range rows {
		var cells []ast.Node
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			cells = append(cells, c)
		}
		at := func(i int) string {
			if i < 0 || i >= len(cells) {
				return ""
			}
			return cellText(cells[i], src)
		}
		var key Page
		if simCol >= 0 && simCol < len(cells) {
			sim := at(simCol)
			switch {
			case hasCond && s.ubSims[sim][at(condCol)]:
				wrapLink(cells[simCol], l.link(page(KindUBSim, "sim", sim, "cond", at(condCol))))
				key = page(KindCompare, "study", "ub", "sim", sim, "cond", at(condCol))
			case s.userSims[sim] != nil:
				key = page(KindCompare, "study", "fid", "sim", sim)
				dom := ""
				if hasDom && contains(s.userSims[sim], at(domCol)) {
					dom = at(domCol)
				}
				var fam, probe string
				if hasFam && slices.Contains(families, at(famCol)) {
					fam = at(famCol)
				}
				if hasProbe {
					probe = at(probeCol)
				}
				wrapLink(cells[simCol], l.link(page(KindFidSim, "sim", sim, "domain", dom, "family", fam, "probe", probe)))
			}
		}
		// A failure family's row over every simulator (and domain) links to
		// every simulator's episodes failing it.
		if simCol >= 0 && at(simCol) == "all" && hasFam && slices.Contains(families, at(famCol)) {
			dom := ""
			if hasDom && at(domCol) != "all" {
				dom = at(domCol)
			}
			wrapLink(cells[famCol], l.link(page(KindFidSim, "domain", dom, "family", at(famCol))))
		}
		if isShare && hasDom && domCol < len(cells) {
			if dom := at(domCol); dom != "" {
				wrapLink(cells[domCol], l.link(page(KindReview, "domain", dom)))
			}
		}
		if hasEp && epCol < len(cells) {
			if id := at(epCol); id != "" {
				wrapLink(cells[epCol], l.link(page(KindEpisode, "id", id)))
			}
		}
		keys = append(keys, key)
	}
	s.compareColumn(header, rows, keys, l)
}

// compareColumn adds to a table whose rows each name a different
// simulator a last column linking each row but the first to the page
// comparing the first row's simulator (A) with its own (B); a table
// where a row names none, or a simulator twice, is left as it is.
func (s *Site) compareColumn(header ast.Node, rows []ast.Node, keys []Page, l linker) {
	if header == nil || len(rows) < 2 {
		return
	}
	seen := map[string]bool{}
	for _, k := range keys {
		if k.Kind == "" || seen[k.Q.Encode()] {
			return
		}
		seen[k.Q.Encode()] = true
	}
	cell := func(text, href string) ast.Node {
		c := east.NewTableCell()
		if text != "" {
			str := ast.NewString([]byte(text))
			if href == "" {
				c.AppendChild(c, str)
			} else {
				link := ast.NewLink()
				link.Destination = []byte(href)
				link.AppendChild(link, str)
				c.AppendChild(c, link)
			}
		}
		return c
	}
	header.AppendChild(header, cell("compare", ""))
	ref := keys[0]
	against := ref.Q.Get("sim")
	if c := ref.Q.Get("cond"); c != "" {
		against += " " + c
	}
	for i, r := range rows {
		if i == 0 {
			r.AppendChild(r, cell("", ""))
			continue
		}
		q := url.Values{}
		for k, v := range ref.Q {
			q[k] = v
		}
		q.Set("sim2", keys[i].Q.Get("sim"))
		if c := keys[i].Q.Get("cond"); c != "" {
			q.Set("cond2", c)
		}
		r.AppendChild(r, cell("against "+against, l.link(Page{Kind: KindCompare, Q: q})))
	}
}

// families are the rubric's failure families (SPEC 6.2), which a table
// row's family column narrows a user simulator's episodes to.
var families = []string{"disclosure", "groundedness", "goal_deviation", "omitted_info"}

// wrapLink moves a cell's content into a link to href.
func wrapLink(cell ast.Node, href string) {
	link := ast.NewLink()
	link.Destination = []byte(href)
	for c := cell.FirstChild(); c != nil; {
		next := c.NextSibling()
		cell.RemoveChild(cell, c)
		link.AppendChild(link, c)
		c = next
	}
	cell.AppendChild(cell, link)
}

func contains(xs []string, x string) bool {
	for _, s := range xs {
		if s == x {
			return true
		}
	}
	return false
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
