package queries

import (
	"context"
	"fmt"
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

// ViewSearchWindow returns at most limit messages of one source at
// storage positions from up to to that pass the filter, by position.
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
			if err := rows.Scan(&h.Pos, &h.SessionID, &h.Turn, &h.Role, &h.Text, &h.Developer, &h.PointID, &h.PointTurn); err != nil {
				return nil, err
			}
			out = append(out, h)
		}
		return out, rows.Err()
	case SearchMessages:
		rows, err := db.QueryContext(ctx, q("view_search_messages"), f.Text, from, to, f.Role, f.Simulator, f.Domain, limit)
		if err != nil {
			return nil, fmt.Errorf("search: messages: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			h := SearchHit{Source: source}
			if err := rows.Scan(&h.Pos, &h.SimulationID, &h.Idx, &h.Turn, &h.Role, &h.Text, &h.UserSim, &h.Domain, &h.TaskID); err != nil {
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
			if err := rows.Scan(&h.Pos, &h.GenID, &h.PointID, &h.Simulator, &h.Condition, &h.N, &h.K, &h.Trial, &h.Text, &h.Developer); err != nil {
				return nil, err
			}
			out = append(out, h)
		}
		return out, rows.Err()
	}
	return nil, fmt.Errorf("search: source %d", source)
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

// searchFirstChunk is the rows the first query of a page reads: a common
// text fills the page from it; each next query reads four times more, up
// to the page's window, so a rare text costs a few queries.
const searchFirstChunk = 4096

// ViewSearch returns a page of a search from cursor at: it reads the
// sources the filter can match (ViewSearchFilter.Sources) in order, from
// at, until it has limit hits or has read window storage positions, and
// stops there; SearchPage.Next is where the next page goes on. A page
// reads at most window rows whatever the workspace holds.
func ViewSearch(ctx context.Context, db Querier, f ViewSearchFilter, at SearchCursor, limit int, window int64) (SearchPage, error) {
	var pg SearchPage
	var err error
	if pg.Extent, err = ViewSearchExtent(ctx, db); err != nil {
		return pg, err
	}
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
			src, pos = src+1, 0
			continue
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
		chunk *= 4
	}
	for src < searchSources && (!on[src] || pos >= pg.Extent.End[src]) {
		src, pos = src+1, 0
	}
	pg.Next, pg.Done = SearchCursor{Source: src, Pos: pos}, src >= searchSources
	for i := range pg.Read {
		if pg.Read[i].Rows, err = ViewSearchSpanRows(ctx, db, pg.Read[i].Source, pg.Read[i].From, pg.Read[i].To); err != nil {
			return pg, err
		}
	}
	return pg, nil
}
