package contract

// Settings are the backyard.* settings a client sends (initializationOptions,
// workspace/didChangeConfiguration, or answers to workspace/configuration),
// nested ({"container": {"image": …}}) or with dotted keys
// ("container.image"). Fields are declared with their JSON key, default
// (`default`), bounds (`min`, `max`), extra checks (`check`: executable, dir
// or url), an older key that still works (`alias`), the command-line flag of
// run, serve and mcp that sets the same thing (`flag`) and the VS Code
// setting scope (`scope`); the doc comment is the setting's description.
// New settings apply to kernels created afterwards.
type Settings struct {
	// Backend of new kernels. A document's backend can be changed with `backyard.setBackend`; restart keeps it.
	Backend Backend `json:"backend" default:"auto" flag:"backend"`
	// Time limit of one cell, in seconds.
	Timeout Seconds `json:"timeout" default:"30" min:"0.001" max:"86400" flag:"timeout"`
	// Memory limit of one kernel, in MiB.
	Memory MiB `json:"memory" default:"256" min:"1" max:"1048576" flag:"memory"`
	// Python call depth limit.
	RecursionLimit int `json:"recursionLimit" default:"1000" min:"1" max:"1073741824" flag:"recursion-limit"`
	// Output kept per stream and cell, in bytes; the rest is dropped with a marker.
	MaxOutputBytes int `json:"maxOutputBytes" default:"1048576" min:"1" max:"1073741824" flag:"max-output-bytes"`
	// Path of the Monty worker binary. Empty: `$MONTY_BIN`, a `monty` next to the server binary (its Python environment, where `pip install backyard-ls` puts the worker), `~/.local/share/backyard-ls/monty/bin/monty`, then `PATH` (the server's own search).
	MontyPath string `json:"montyPath" check:"executable" scope:"machine-overridable" flag:"monty"`
	// Package installs of container kernels.
	Install InstallSettings `json:",inline"`
	// In auto mode, start the container as soon as a document shows it will likely need it (an import Monty lacks, a cell whose run is compared with CPython's, a raise), so a move or a check costs only the cell.
	Prewarm bool `json:"prewarm" default:"true"`
	// Container kernels.
	Container ContainerSettings `json:"container"`
	// The files kernels see and write.
	Files FilesSettings `json:"files"`
}

// FilesSettings are the backyard.files.* settings: what of the workspace a
// kernel sees (its folders, read-only, less the hidden names) and where its
// writes go.
type FilesSettings struct {
	// Names kept out of kernels, as glob patterns matched against each part of a path (a pattern with `/`, such as `.config/gh`, against as many consecutive parts): such a file or folder behaves as if it did not exist.
	Hide []string `json:"hide" default:".git,.hg,.svn,.env,.env.*,*.pem,*.key,*.p12,*.pfx,id_rsa*,id_dsa*,id_ecdsa*,id_ed25519*,.ssh,.aws,.azure,.gnupg,.kube,.docker,.netrc,.npmrc,.pypirc,.git-credentials,.config/gh,.config/gcloud,*_history,.password-store"`
	// Let kernels see a workspace folder that is the file system's root, the home folder or a folder above it, with a warning. Off: such a folder is left out, and a document's kernel sees its project folder instead (the nearest folder above it with `.git`, `pyproject.toml` or `setup.cfg`, else its own folder; none in the home folder itself).
	BroadWorkspace bool `json:"broadWorkspace" default:"false"`
	// Where the files a cell writes go: `sandbox` keeps them in the kernel (the workspace stays untouched; `backyard.saveFiles` writes chosen ones), `workspace` writes the real files.
	Write FilesWrite `json:"write" default:"sandbox" flag:"files-write"`
}

// InstallSettings say how container kernels get packages a cell imports but
// the image lacks; their keys are top-level (autoInstall, indexUrl,
// findLinks).
type InstallSettings struct {
	// Install packages a container cell imports but the image lacks.
	AutoInstall InstallPolicy `json:"autoInstall" default:"off" alias:"container.autoInstall" flag:"auto-install"`
	// Package index URL for installs (default: PyPI), such as a company mirror.
	IndexURL string `json:"indexUrl" check:"url" alias:"container.indexUrl" flag:"index-url"`
	// A directory of wheels to install from (pip --find-links); with no index URL, installs use only this directory and no network.
	FindLinks string `json:"findLinks" check:"dir" alias:"container.findLinks" flag:"find-links"`
}

// ContainerSettings are the backyard.container.* settings.
type ContainerSettings struct {
	// Image of container kernels: any image with python3 ≥ 3.8; nothing else is needed in it.
	Image string `json:"image" default:"python:3.13-slim" flag:"image"`
	// OCI runtime of container kernels.
	Runtime Runtime `json:"runtime" flag:"runtime"`
	// Network of container kernels: `none` keeps the kernel offline. `true` and `false` mean `bridge` and `none`.
	Network Network `json:"network" default:"none"`
	// Show the workspace to container kernels (at its own paths, under files.hide and files.write).
	MountWorkspace bool `json:"mountWorkspace" default:"true"`
	// Containers kept started and empty for each image and runtime, so that the first cell of a document that needs the container does not wait for one to start; `0` keeps none.
	WarmPool int `json:"warmPool" default:"1" min:"0" max:"8"`
}

// EditorSettings are read by the editors only; the server ignores them.
type EditorSettings struct {
	// Path of the `backyard-ls` binary. Empty: the binary shipped in the extension's `bin/`, else the one in the scripts folder of the Python environment selected in the Python extension (then `$VIRTUAL_ENV`, `$CONDA_PREFIX`), else `backyard-ls` on `PATH`.
	ServerPath string `json:"serverPath" scope:"machine-overridable"`
	// How each cell's result is shown in the editor.
	InlineResults InlineResults `json:"inlineResults" default:"decorations"`
	// Trace the LSP messages between VS Code and backyard-ls (in the 'backyard-ls server' output).
	TraceServer Trace `json:"trace.server" default:"off" scope:"window"`
}

// Seconds is a duration setting in seconds.
type Seconds float64

// MiB is a size setting in mebibytes.
type MiB int

// InstallPolicy says what happens to a package a cell imports but the
// image lacks. A boolean is read as on or off.
type InstallPolicy string

const (
	// Never install packages.
	InstallOff InstallPolicy = "off"
	// Offer to install a package a cell imports but the image lacks.
	InstallAsk InstallPolicy = "ask"
	// Install such packages without asking (in a separate short-lived container; the kernel stays offline).
	InstallOn InstallPolicy = "on"
)

// Runtime is the OCI runtime of container kernels.
type Runtime string

const (
	// gVisor (runsc) when the engine has it, else runc with a warning.
	RuntimeAuto Runtime = ""
	// Always gVisor.
	RuntimeRunsc Runtime = "runsc"
	// Always runc.
	RuntimeRunc Runtime = "runc"
)

// Network is the network of container kernels. A boolean is read as bridge
// (true) or none (false).
type Network string

const (
	// No network at all.
	NetworkNone Network = "none"
	// The engine's default network.
	NetworkBridge Network = "bridge"
)

// InlineResults is how VS Code shows a cell's result.
type InlineResults string

const (
	// Coloured text after each cell, with the full output on hover.
	InlineDecorations InlineResults = "decorations"
	// The server's plain inlay hints (the trailing value only).
	InlineInlayHints InlineResults = "inlayHints"
	// No inline results (the output channel and code lenses only).
	InlineOff InlineResults = "off"
)

// FilesWrite says where the files a cell writes go.
type FilesWrite string

const (
	// Kept in the kernel's overlay (memory); restart discards them.
	FilesSandbox FilesWrite = "sandbox"
	// Written to the workspace: the user's real files.
	FilesWorkspace FilesWrite = "workspace"
)

// Trace is the LSP trace level of VS Code's client.
type Trace string

const (
	// No trace.
	TraceOff Trace = "off"
	// Message names.
	TraceMessages Trace = "messages"
	// Messages with their params.
	TraceVerbose Trace = "verbose"
)
