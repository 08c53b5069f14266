package queries

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
)

// The search of ub view: text over every message the workspace holds,
// read one bounded window of rows a page, so that a page costs the same
// whatever the workspace holds; the page says how far it read.

// Search sources, in the order a search reads them: the UserBench
// sessions' turns, the tau2 episodes' messages, the simulators'
// generations.
const (
	SearchTurns = iota
	SearchMessages
	SearchGenerations
	searchSources
)

// SearchSourceNames name the sources in a search cursor, by source.
var SearchSourceNames = [searchSources]string{"turns", "messages", "generations"}

// ViewSearchFilter is what a search looks for: Text (a substring,
// ignoring case as DuckDB's lower() folds it) in the messages of Role, of
// simulator Simulator (a UserBench simulator's generations or a user
// simulator's episodes), in Domain (episodes), of Developer (sessions and
// generations) ("" each: any). Role is a session turn's role (developer,
// agent, tool, system), an episode message's (user, assistant, tool,
// system) or "generation".
type ViewSearchFilter struct {
	Text, Role, Simulator, Domain, Developer string
}

// Sources are the sources a filter can match: a simulator leaves the
// session turns out (they are real), a domain everything but episodes, a
// developer the episodes, a role the sources that do not have it.
func (f ViewSearchFilter) Sources() [3]bool {
	on := [3]bool{true, true, true}
	if f.Simulator != "" || f.Domain != "" {
		on[SearchTurns] = false
	}
	if f.Domain != "" {
		on[SearchGenerations] = false
	}
	if f.Developer != "" {
		on[SearchMessages] = false
	}
	switch f.Role {
	case "":
	case "generation":
		on[SearchTurns], on[SearchMessages] = false, false
	case "developer", "agent":
		on[SearchMessages], on[SearchGenerations] = false, false
	case "user", "assistant":
		on[SearchTurns], on[SearchGenerations] = false, false
	default: // tool, system
		on[SearchGenerations] = false
	}
	return on
}

// SearchCursor is where a search page starts: a source and a storage
// position (rowid) in it.
type SearchCursor struct {
	Source int
	Pos    int64
}

// SearchHit is one message that holds the text: its source and storage
// position, its role and text, and where it lives.
type SearchHit struct {
	Source int
	Pos    int64
	Role   string
	Text   string
	// Session turns: the session, the turn, the developer, and the moment
	// it leads to (the session's first point at or after it; "" none).
	SessionID string
	Turn      int
	Developer string
	PointID   string
	PointTurn int
	// Episode messages: the episode, the message, its turn, the user
	// simulator, domain and task.
	SimulationID    string
	Idx             int
	UserSim, Domain string
	TaskID          string
	// Generations: the generation, its setting and trial (and PointID,
	// Developer).
	GenID, Simulator, Condition string
	N, K, Trial                 int
}

// SearchSpan is what a search page read of one source: storage positions
// From up to To, Rows rows.
type SearchSpan struct {
	Source   int
	From, To int64
	Rows     int64
}

// SearchExtent is where each source's storage positions end and how many
// rows it holds, by source.
type SearchExtent struct {
	End, Rows [3]int64
}

// ViewSearchExtent returns the sources' extents.
func ViewSearchExtent(ctx context.Context, db Querier) (SearchExtent, error) {
	var e SearchExtent
	err := db.QueryRowContext(ctx, q("view_search_extent")).Scan(&e.End[0], &e.Rows[0], &e.End[1], &e.Rows[1], &e.End[2], &e.Rows[2])
	if err != nil {
		return e, fmt.Errorf("search: extent: %w", err)
	}
	return e, nil
}

// ViewSearchDeveloper reports whether the workspace holds a developer.
func ViewSearchDeveloper(ctx context.Context, db Querier, name string) (bool, error) {
	var ok bool
	if err := db.QueryRowContext(ctx, q("view_search_developer"), name).Scan(&ok); err != nil {
		return false, fmt.Errorf("search: developer: %w", err)
	}
	return ok, nil
}

// ViewSearchWindow returns (after ViewWarm, whose episode list narrows
// the messages) at most limit messages of one source at
// storage positions from up to to that pass the filter, by position;
// what each belongs to is not filled in (ViewSearch does).
func ViewSearchWindow(ctx context.Context, db Querier, f ViewSearchFilter, source int, from, to int64, limit int) ([]SearchHit, error) {
	var out []SearchHit
	switch source {
	case SearchTurns:
		rows, err := db.QueryContext(ctx, q("view_search_turns"), f.Text, from, to, f.Role, f.Developer, limit)
		if err != nil {
			return nil, fmt.Errorf("search: turns: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			h := SearchHit{Source: source}
			if err := rows.Scan(&h.Pos, &h.SessionID, &h.Turn, &h.Role, &h.Text); err != nil {
				return nil, err
			}
			out = append(out, h)
		}
		return out, rows.Err()
	case SearchMessages:
		args := []any{f.Text, from, to, f.Role, limit}
		name := "view_search_messages"
		if f.Simulator != "" || f.Domain != "" {
			name, args = "view_search_messages_of", append(args, f.Simulator, f.Domain)
		}
		rows, err := db.QueryContext(ctx, q(name), args...)
		if err != nil {
			return nil, fmt.Errorf("search: messages: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			h := SearchHit{Source: source}
			if err := rows.Scan(&h.Pos, &h.SimulationID, &h.Idx, &h.Turn, &h.Role, &h.Text); err != nil {
				return nil, err
			}
			out = append(out, h)
		}
		return out, rows.Err()
	case SearchGenerations:
		rows, err := db.QueryContext(ctx, q("view_search_generations"), f.Text, from, to, f.Simulator, f.Developer, limit)
		if err != nil {
			return nil, fmt.Errorf("search: generations: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			h := SearchHit{Source: source, Role: "generation"}
			if err := rows.Scan(&h.Pos, &h.GenID, &h.PointID, &h.Simulator, &h.Condition, &h.N, &h.K, &h.Trial, &h.Text); err != nil {
				return nil, err
			}
			out = append(out, h)
		}
		return out, rows.Err()
	}
	return nil, fmt.Errorf("search: source %d", source)
}

// searchPlaces reads what the hits of a page belong to, each session,
// episode and point once: a turn's developer and the moment it leads to,
// a message's user simulator, domain and task, a generation's developer.
type searchPlaces struct {
	db       Querier
	sessions map[string]sessionPlace
	episodes map[string][3]string
	points   map[string]string
}

type sessionPlace struct {
	developer string
	turns     []int // the session's points' turns, ascending
	ids       []string
}

// read reads what the hits belong to, three queries for a page at most
// (one a source): each hit's session, episode or point once. One the
// workspace no longer holds is read as empty.
func (p *searchPlaces) read(ctx context.Context, hits []SearchHit) error {
	var sessions, episodes, points []string
	for _, h := range hits {
		switch h.Source {
		case SearchTurns:
			if _, ok := p.sessions[h.SessionID]; !ok && !slices.Contains(sessions, h.SessionID) {
				sessions = append(sessions, h.SessionID)
			}
		case SearchMessages:
			if _, ok := p.episodes[h.SimulationID]; !ok && !slices.Contains(episodes, h.SimulationID) {
				episodes = append(episodes, h.SimulationID)
			}
		case SearchGenerations:
			if _, ok := p.points[h.PointID]; !ok && !slices.Contains(points, h.PointID) {
				points = append(points, h.PointID)
			}
		}
	}
	each := func(name string, ids []string, row func(*sql.Rows) error) error {
		if len(ids) == 0 {
			return nil
		}
		if err := epScanList(ctx, p.db, name, ids, row); err != nil {
			return fmt.Errorf("search: what the hits belong to: %w", err)
		}
		return nil
	}
	if err := each("view_search_turns_at", sessions, func(r *sql.Rows) error {
		var id, developer string
		var turn sql.NullInt64
		var point sql.NullString
		if err := r.Scan(&id, &developer, &turn, &point); err != nil {
			return err
		}
		sp := p.sessions[id]
		sp.developer = developer
		if turn.Valid {
			sp.turns, sp.ids = append(sp.turns, int(turn.Int64)), append(sp.ids, point.String)
		}
		p.sessions[id] = sp
		return nil
	}); err != nil {
		return err
	}
	if err := each("view_search_messages_at", episodes, func(r *sql.Rows) error {
		var id string
		var e [3]string
		if err := r.Scan(&id, &e[0], &e[1], &e[2]); err != nil {
			return err
		}
		p.episodes[id] = e
		return nil
	}); err != nil {
		return err
	}
	if err := each("view_search_point_developers", points, func(r *sql.Rows) error {
		var id, developer string
		if err := r.Scan(&id, &developer); err != nil {
			return err
		}
		p.points[id] = developer
		return nil
	}); err != nil {
		return err
	}
	// What is gone is read as empty, and not asked again.
	for _, id := range sessions {
		p.sessions[id] = p.sessions[id]
	}
	for _, id := range episodes {
		p.episodes[id] = p.episodes[id]
	}
	for _, id := range points {
		p.points[id] = p.points[id]
	}
	return nil
}

// place fills in what h belongs to, as read (left empty where the
// workspace no longer holds it).
func (p *searchPlaces) place(h *SearchHit) {
	switch h.Source {
	case SearchTurns:
		sp := p.sessions[h.SessionID]
		h.Developer, h.PointTurn = sp.developer, -1
		for i, t := range sp.turns {
			if t >= h.Turn {
				h.PointID, h.PointTurn = sp.ids[i], t
				break
			}
		}
	case SearchMessages:
		e := p.episodes[h.SimulationID]
		h.UserSim, h.Domain, h.TaskID = e[0], e[1], e[2]
	case SearchGenerations:
		h.Developer = p.points[h.PointID]
	}
}

// ViewSearchSpanRows returns how many rows of a source lie at storage
// positions from up to to.
func ViewSearchSpanRows(ctx context.Context, db Querier, source int, from, to int64) (int64, error) {
	var n int64
	if err := db.QueryRowContext(ctx, q("view_search_span"), source, from, to).Scan(&n); err != nil {
		return 0, fmt.Errorf("search: rows read: %w", err)
	}
	return n, nil
}

// SearchPage is one page of a search: its hits, by source and position;
// what it read of each source; where the next page starts; whether it
// read every source to its end; and the sources' extents.
type SearchPage struct {
	Hits   []SearchHit
	Read   []SearchSpan
	Next   SearchCursor
	Done   bool
	Extent SearchExtent
}

// searchFirstChunk is the rows the first query of a page reads in a
// source: a common text fills the page from it; the next query reads the
// rest of the page's window, so a rare text costs two queries a source.
const searchFirstChunk = 8192

// ViewSearch returns a page of a search from cursor at, over sources of
// extent ext (ViewSearchExtent): it reads the sources the filter can
// match (ViewSearchFilter.Sources) in order, from at, until it has limit
// hits or has read window storage positions, and stops there;
// SearchPage.Next is where the next page goes on. A page reads at most
// window rows whatever the workspace holds.
func ViewSearch(ctx context.Context, db Querier, f ViewSearchFilter, at SearchCursor, limit int, window int64, ext SearchExtent) (SearchPage, error) {
	pg := SearchPage{Extent: ext}
	var err error
	on := f.Sources()
	src, pos := at.Source, at.Pos
	budget, chunk := window, int64(searchFirstChunk)
	read := func(from, to int64) {
		if n := len(pg.Read); n > 0 && pg.Read[n-1].Source == src && pg.Read[n-1].To == from {
			pg.Read[n-1].To = to
			return
		}
		pg.Read = append(pg.Read, SearchSpan{Source: src, From: from, To: to})
	}
	for src < searchSources && budget > 0 && len(pg.Hits) < limit {
		if !on[src] || pos >= pg.Extent.End[src] {
			src, pos, chunk = src+1, 0, searchFirstChunk
			continue
		}
		if src == SearchMessages && (f.Simulator != "" || f.Domain != "") {
			chunk = window // each query reads the episode list whole: one a page
		}
		to := pos + min(chunk, budget, pg.Extent.End[src]-pos)
		hits, err := ViewSearchWindow(ctx, db, f, src, pos, to, limit-len(pg.Hits))
		if err != nil {
			return pg, err
		}
		pg.Hits = append(pg.Hits, hits...)
		if len(pg.Hits) == limit { // the page is full: the next one starts after its last hit
			to = pg.Hits[len(pg.Hits)-1].Pos + 1
		}
		read(pos, to)
		budget -= to - pos
		pos = to
		chunk = window
	}
	for src < searchSources && (!on[src] || pos >= pg.Extent.End[src]) {
		src, pos = src+1, 0
	}
	pg.Next, pg.Done = SearchCursor{Source: src, Pos: pos}, src >= searchSources
	places := &searchPlaces{db: db, sessions: map[string]sessionPlace{}, episodes: map[string][3]string{}, points: map[string]string{}}
	if err := places.read(ctx, pg.Hits); err != nil {
		return pg, err
	}
	for i := range pg.Hits {
		places.place(&pg.Hits[i])
	}
	for i := range pg.Read {
		r := &pg.Read[i]
		if ext.Rows[r.Source] == ext.End[r.Source] { // no row deleted: positions are rows
			r.Rows = r.To - r.From
			continue
		}
		if r.Rows, err = ViewSearchSpanRows(ctx, db, r.Source, r.From, r.To); err != nil {
			return pg, err
		}
	}
	return pg, nil
}
