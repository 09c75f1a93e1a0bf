package container

import (
	"fmt"
	"sort"

	"github.com/docker/docker/pkg/jsonmessage"
)

// pullProgress turns the engine's pull messages into one percentage over
// all layers: downloading is the first 80% of a layer, extracting the rest.
type pullProgress struct {
	layers map[string]float64 // layer ID → fraction done
	last   int
}

// update takes one message and returns the overall percent (-1 while no
// layer is known) and a short status line.
func (p *pullProgress) update(m jsonmessage.JSONMessage) (int, string) {
	if p.layers == nil {
		p.layers = map[string]float64{}
	}
	frac := func(weight, base float64) float64 {
		if m.Progress == nil || m.Progress.Total <= 0 {
			return base
		}
		return base + weight*min(1, float64(m.Progress.Current)/float64(m.Progress.Total))
	}
	if m.ID != "" {
		switch m.Status {
		case "Pulling fs layer", "Waiting":
			p.layers[m.ID] = max(p.layers[m.ID], 0)
		case "Downloading":
			p.layers[m.ID] = frac(0.8, 0)
		case "Verifying Checksum", "Download complete":
			p.layers[m.ID] = 0.8
		case "Extracting":
			p.layers[m.ID] = frac(0.2, 0.8)
		case "Pull complete", "Already exists":
			p.layers[m.ID] = 1
		}
	}
	msg := m.Status
	if m.ID != "" && len(p.layers) > 0 && m.Status != "" {
		msg = fmt.Sprintf("%s %s", m.Status, shortID(m.ID))
	}
	if len(p.layers) == 0 {
		return -1, msg
	}
	ids := make([]string, 0, len(p.layers))
	for id := range p.layers {
		ids = append(ids, id)
	}
	sort.Strings(ids) // a fixed order keeps the float sum stable
	var sum float64
	for _, id := range ids {
		sum += p.layers[id]
	}
	pct := int(100 * sum / float64(len(ids)))
	// Layers appear one by one; never let the bar go back.
	pct = max(pct, p.last)
	p.last = pct
	return pct, msg
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}
