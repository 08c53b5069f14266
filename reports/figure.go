package reports

import (
	"bytes"
	"image/color"
	"os"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// palette is the colour cycle of every figure (Okabe-Ito, readable by
// colour-blind readers).
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255},   // blue
	color.RGBA{230, 159, 0, 255},   // orange
	color.RGBA{0, 158, 115, 255},   // green
	color.RGBA{204, 121, 167, 255}, // purple
	color.RGBA{86, 180, 233, 255},  // sky
	color.RGBA{213, 94, 0, 255},    // vermilion
	color.RGBA{240, 228, 66, 255},  // yellow
}

// saveFigure writes p as name.svg and name.png (at 150 dpi) into dir. Both
// are byte-identical for the same plot: no time stamps, embedded fonts.
func saveFigure(p *plot.Plot, dir, name string, w, h vg.Length) ([]string, error) {
	svg := vgsvg.New(w, h)
	p.Draw(draw.New(svg))
	var sb bytes.Buffer
	if _, err := svg.WriteTo(&sb); err != nil {
		return nil, err
	}
	png := vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(150))
	p.Draw(draw.New(png))
	var pb bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: png}).WriteTo(&pb); err != nil {
		return nil, err
	}
	var out []string
	for ext, b := range map[string][]byte{".svg": sb.Bytes(), ".png": pb.Bytes()} {
		path := filepath.Join(dir, name+ext)
		if err := writeAtomic(path, b); err != nil {
			return nil, err
		}
		out = append(out, path)
	}
	if out[0] > out[1] {
		out[0], out[1] = out[1], out[0]
	}
	return out, nil
}

// writeAtomic writes a file through a temporary beside it and a rename, so
// a reader never sees half a file.
func writeAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
