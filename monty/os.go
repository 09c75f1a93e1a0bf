package monty

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/backyard-ls/backyard-ls/files"
	"github.com/backyard-ls/backyard-ls/internal/proc"
	"github.com/backyard-ls/backyard-ls/monty/internal/pb"
)

// A worker's OS calls other than sleeps are answered here: the file-system
// calls from Config.FS (refused without one, as the worker's own
// PermissionError), the environment from Config.Env, the clock and
// entropy from the host. Imports of modules the worker lacks, and every
// call this schema does not know, are refused: the cell gets the worker's
// own error (ModuleNotFoundError, PermissionError, RuntimeError), never a
// broken kernel. Errors are raised as CPython raises them on Linux: the
// exception type and "[Errno N] text: 'path'", the path as the cell spelled
// it when it was relative to the working directory.

// arena builds the values of a reply; a node's children come before it.
type arena struct{ nodes []*pb.MontyNode }

func (a *arena) add(n *pb.MontyNode) uint32 {
	a.nodes = append(a.nodes, n)
	return uint32(len(a.nodes) - 1)
}

func (a *arena) none() uint32 {
	return a.add(&pb.MontyNode{Kind: &pb.MontyNode_None{None: &pb.Unit{}}})
}
func (a *arena) boolean(b bool) uint32 {
	return a.add(&pb.MontyNode{Kind: &pb.MontyNode_Boolean{Boolean: b}})
}
func (a *arena) int(i int64) uint32 { return a.add(&pb.MontyNode{Kind: &pb.MontyNode_Int{Int: i}}) }
func (a *arena) float(f float64) uint32 {
	return a.add(&pb.MontyNode{Kind: &pb.MontyNode_Float{Float: f}})
}
func (a *arena) str(s string) uint32 { return a.add(&pb.MontyNode{Kind: &pb.MontyNode_Str{Str: s}}) }
func (a *arena) bytes(b []byte) uint32 {
	return a.add(&pb.MontyNode{Kind: &pb.MontyNode_Bytes{Bytes: b}})
}
func (a *arena) path(p string) uint32 { return a.add(&pb.MontyNode{Kind: &pb.MontyNode_Path{Path: p}}) }
func (a *arena) list(items []uint32) uint32 {
	return a.add(&pb.MontyNode{Kind: &pb.MontyNode_List{List: &pb.Indexes{Items: items}}})
}
func (a *arena) tuple(items ...uint32) uint32 {
	return a.add(&pb.MontyNode{Kind: &pb.MontyNode_Tuple{Tuple: &pb.Indexes{Items: items}}})
}

func (a *arena) arena() *pb.Arena {
	return &pb.Arena{NodeCount: uint32(len(a.nodes)), Nodes: a.nodes}
}

// returned answers call id with the value at root of a.
func returned(id uint32, a *arena, root uint32) *pb.ParentRequest {
	return resumeCall(id, &pb.ExtFunctionResult{Kind: &pb.ExtFunctionResult_ReturnValue{ReturnValue: root}}, a.arena())
}

func notHandled(id uint32) *pb.ParentRequest {
	return resumeCall(id, &pb.ExtFunctionResult{Kind: &pb.ExtFunctionResult_NotHandled{NotHandled: &pb.Unit{}}}, nil)
}

func raised(id uint32, excType, msg string) *pb.ParentRequest {
	return resumeCall(id, &pb.ExtFunctionResult{Kind: &pb.ExtFunctionResult_Error{Error: &pb.RaisedException{ExcType: excType, Message: &msg}}}, nil)
}

// osHost answers the OS calls of one worker.
type osHost struct {
	fs    *files.FS
	cwd   string
	env   map[string]string
	start time.Time // of the monotonic clocks
	// unread counts the text handles opened per path and not read yet:
	// their first read comes as read_text, which must keep the file's
	// newlines (the handle translates them itself); Path.read_text does
	// not, so the host translates for it.
	unread map[string]int
}

// serve answers an OS call that is not a sleep.
func (h *osHost) serve(c *pb.OsCall) *pb.ParentRequest {
	id := c.CallId
	a := &arena{}
	switch k := c.Call.(type) {
	case *pb.OsCall_Getenv_:
		if v, ok := h.env[k.Getenv.Key]; ok {
			return returned(id, a, a.str(v))
		}
		if c.Values == nil || int(k.Getenv.Default) >= len(c.Values.Nodes) {
			return returned(id, a, a.none())
		}
		return resumeCall(id, &pb.ExtFunctionResult{Kind: &pb.ExtFunctionResult_ReturnValue{ReturnValue: k.Getenv.Default}}, c.Values)
	case *pb.OsCall_GetEnviron:
		var pairs []*pb.NodePair
		for _, key := range sortedKeys(h.env) {
			pairs = append(pairs, &pb.NodePair{Key: a.str(key), Value: a.str(h.env[key])})
		}
		return returned(id, a, a.add(&pb.MontyNode{Kind: &pb.MontyNode_Dict{Dict: &pb.NodePairs{Pairs: pairs}}}))
	case *pb.OsCall_Urandom_:
		if k.Urandom.Size > 1<<26 {
			return raised(id, "MemoryError", "")
		}
		b := make([]byte, k.Urandom.Size)
		_, _ = rand.Read(b)
		return returned(id, a, a.bytes(b))
	case *pb.OsCall_Time:
		switch k.Time.Caller {
		case "time.time", "time.time_ns", "":
			return returned(id, a, a.float(float64(time.Now().UnixNano())/1e9))
		default: // monotonic, perf_counter, process_time
			return returned(id, a, a.float(time.Since(h.start).Seconds()))
		}
	case *pb.OsCall_DateToday:
		t := time.Now().UTC() // the container's clock has no time zone either
		return returned(id, a, a.add(&pb.MontyNode{Kind: &pb.MontyNode_Date{Date: &pb.Date{Year: int32(t.Year()), Month: uint32(t.Month()), Day: uint32(t.Day())}}}))
	case *pb.OsCall_DateTimeNow_:
		t := time.Now().UTC()
		d := &pb.DateTime{Year: int32(t.Year()), Month: uint32(t.Month()), Day: uint32(t.Day()), Hour: uint32(t.Hour()),
			Minute: uint32(t.Minute()), Second: uint32(t.Second()), Microsecond: uint32(t.Nanosecond() / 1000)}
		if tz := k.DateTimeNow.Tz; tz != nil {
			t = t.Add(time.Duration(tz.OffsetSeconds) * time.Second)
			d = &pb.DateTime{Year: int32(t.Year()), Month: uint32(t.Month()), Day: uint32(t.Day()), Hour: uint32(t.Hour()),
				Minute: uint32(t.Minute()), Second: uint32(t.Second()), Microsecond: uint32(t.Nanosecond() / 1000),
				OffsetSeconds: &tz.OffsetSeconds, TimezoneName: tz.Name}
		}
		return returned(id, a, a.add(&pb.MontyNode{Kind: &pb.MontyNode_Datetime{Datetime: d}}))
	case *pb.OsCall_Import_, *pb.OsCall_ImportStubs_:
		// No host modules: ModuleNotFoundError (the auto kernel then moves
		// the cell to the container); no stubs for the type checker.
		return notHandled(id)
	}
	if h.fs == nil || c.Call == nil {
		return notHandled(id) // the worker's own PermissionError or RuntimeError
	}
	return h.serveFile(c, a)
}

// serveFile answers a file-system call.
func (h *osHost) serveFile(c *pb.OsCall, a *arena) *pb.ParentRequest {
	id := c.CallId
	fsys := h.fs
	fail := func(err error, p string, more ...string) *pb.ParentRequest {
		t, msg := h.exception(err, p, more...)
		return raised(id, t, msg)
	}
	isA := func(p string, test func(files.Info) bool, follow bool) *pb.ParentRequest {
		info, err := fsys.Stat(h.abs(p), follow)
		return returned(id, a, a.boolean(err == nil && test(info)))
	}
	switch k := c.Call.(type) {
	case *pb.OsCall_Exists:
		return isA(k.Exists, func(files.Info) bool { return true }, true)
	case *pb.OsCall_IsFile:
		return isA(k.IsFile, func(i files.Info) bool { return !i.Dir }, true)
	case *pb.OsCall_IsDir:
		return isA(k.IsDir, func(i files.Info) bool { return i.Dir }, true)
	case *pb.OsCall_IsSymlink:
		return isA(k.IsSymlink, func(i files.Info) bool { return i.Link }, false)
	case *pb.OsCall_ReadText:
		data, err := fsys.ReadFile(h.abs(k.ReadText))
		if err != nil {
			return fail(err, k.ReadText)
		}
		if !utf8.Valid(data) {
			return raised(id, "UnicodeDecodeError", utf8Error(data))
		}
		text := string(data)
		if h.unread[k.ReadText] > 0 {
			h.unread[k.ReadText]--
		} else {
			text = universalNewlines(text)
		}
		return returned(id, a, a.str(text))
	case *pb.OsCall_ReadBytes:
		data, err := fsys.ReadFile(h.abs(k.ReadBytes))
		if err != nil {
			return fail(err, k.ReadBytes)
		}
		return returned(id, a, a.bytes(data))
	case *pb.OsCall_Stat:
		info, err := fsys.Stat(h.abs(k.Stat), true)
		if err != nil {
			return fail(err, k.Stat)
		}
		return returned(id, a, statResult(a, info))
	case *pb.OsCall_Iterdir:
		names, err := fsys.ReadDir(h.abs(k.Iterdir))
		if err != nil {
			return fail(err, k.Iterdir)
		}
		items := make([]uint32, len(names))
		for i, n := range names {
			items[i] = a.path(path.Join(k.Iterdir, n))
		}
		return returned(id, a, a.list(items))
	case *pb.OsCall_Resolve:
		return returned(id, a, a.path(fsys.Resolve(h.abs(k.Resolve))))
	case *pb.OsCall_Absolute:
		return returned(id, a, a.path(h.abs(k.Absolute)))
	case *pb.OsCall_Unlink:
		if err := fsys.Remove(h.abs(k.Unlink)); err != nil {
			return fail(err, k.Unlink)
		}
		return returned(id, a, a.none())
	case *pb.OsCall_Rmdir:
		if err := fsys.Rmdir(h.abs(k.Rmdir)); err != nil {
			return fail(err, k.Rmdir)
		}
		return returned(id, a, a.none())
	case *pb.OsCall_WriteText:
		return h.write(id, a, k.WriteText.Path, []byte(k.WriteText.Data), utf8.RuneCountInString(k.WriteText.Data), false)
	case *pb.OsCall_AppendText:
		return h.write(id, a, k.AppendText.Path, []byte(k.AppendText.Data), utf8.RuneCountInString(k.AppendText.Data), true)
	case *pb.OsCall_WriteBytes:
		return h.write(id, a, k.WriteBytes.Path, k.WriteBytes.Data, len(k.WriteBytes.Data), false)
	case *pb.OsCall_AppendBytes:
		return h.write(id, a, k.AppendBytes.Path, k.AppendBytes.Data, len(k.AppendBytes.Data), true)
	case *pb.OsCall_Open_:
		p, mode := k.Open.Path, k.Open.Mode
		size, err := fsys.Open(h.abs(p), mode)
		if err != nil {
			return fail(err, p)
		}
		var pos uint64
		if strings.HasPrefix(mode, "a") {
			pos = uint64(size) // tell() of an appending file is its size
		}
		if mode == "r" {
			if h.unread == nil {
				h.unread = map[string]int{}
			}
			h.unread[p]++
		}
		return returned(id, a, a.add(&pb.MontyNode{Kind: &pb.MontyNode_FileHandle{FileHandle: &pb.FileHandle{Path: p, Mode: mode, Position: pos}}}))
	case *pb.OsCall_Mkdir_:
		if err := fsys.Mkdir(h.abs(k.Mkdir.Path), k.Mkdir.Parents, k.Mkdir.ExistOk); err != nil {
			return fail(err, k.Mkdir.Path)
		}
		return returned(id, a, a.none())
	case *pb.OsCall_Rename_:
		if err := fsys.Rename(h.abs(k.Rename.Src), h.abs(k.Rename.Dst)); err != nil {
			return fail(err, k.Rename.Src, k.Rename.Dst)
		}
		return returned(id, a, a.none())
	case *pb.OsCall_Scan_:
		depth := -1
		if k.Scan.MaxDepth != nil {
			depth = int(*k.Scan.MaxDepth)
		}
		entries, err := fsys.Scan(h.abs(k.Scan.Path), depth, k.Scan.FollowSymlinks)
		if err != nil {
			return fail(err, k.Scan.Path)
		}
		items := make([]uint32, len(entries))
		for i, e := range entries {
			items[i] = a.tuple(a.str(e.Rel), a.boolean(e.Dir), a.boolean(e.File), a.boolean(e.Symlink))
		}
		return returned(id, a, a.list(items))
	}
	return notHandled(id)
}

func (h *osHost) write(id uint32, a *arena, p string, data []byte, count int, appendTo bool) *pb.ParentRequest {
	if err := h.fs.WriteFile(h.abs(p), data, appendTo); err != nil {
		t, msg := h.exception(err, p)
		return raised(id, t, msg)
	}
	return returned(id, a, a.int(int64(count)))
}

// universalNewlines reads text as CPython's text mode does by default:
// "\r\n" and "\r" become "\n".
func universalNewlines(s string) string {
	if !strings.Contains(s, "\r") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
}

// abs is a path the worker sent, "" being the working directory.
func (h *osHost) abs(p string) string {
	if p == "" {
		return h.cwd
	}
	return p
}

// spelled is p as the cell most likely wrote it: relative to the working
// directory when it lies below it.
func (h *osHost) spelled(p string) string {
	if p == "" || h.cwd == "" || h.cwd == "/" {
		return p
	}
	if p == h.cwd {
		return "."
	}
	if rest, ok := strings.CutPrefix(p, h.cwd+"/"); ok {
		return rest
	}
	return p
}

// linuxErrno are the errors a file call raises, with the exception type,
// number and text CPython shows for them on Linux.
var linuxErrno = []struct {
	err  syscall.Errno
	typ  string
	num  int
	text string
}{
	{syscall.ENOENT, "FileNotFoundError", 2, "No such file or directory"},
	{syscall.EEXIST, "FileExistsError", 17, "File exists"},
	{syscall.EISDIR, "IsADirectoryError", 21, "Is a directory"},
	{syscall.ENOTDIR, "NotADirectoryError", 20, "Not a directory"},
	{syscall.EACCES, "PermissionError", 13, "Permission denied"},
	{syscall.EPERM, "PermissionError", 1, "Operation not permitted"},
	{syscall.ENOTEMPTY, "OSError", 39, "Directory not empty"},
	{syscall.ENOSPC, "OSError", 28, "No space left on device"},
	{syscall.EROFS, "OSError", 30, "Read-only file system"},
	{syscall.EINVAL, "OSError", 22, "Invalid argument"},
	{syscall.EXDEV, "OSError", 18, "Invalid cross-device link"},
	{syscall.ENAMETOOLONG, "OSError", 36, "File name too long"},
	{syscall.ELOOP, "OSError", 40, "Too many levels of symbolic links"},
}

// exception is the Python exception for err on path p (and, for a rename,
// its target).
func (h *osHost) exception(err error, p string, more ...string) (string, string) {
	where := StrRepr(h.spelled(p))
	for _, m := range more {
		where += " -> " + StrRepr(h.spelled(m))
	}
	for _, e := range linuxErrno {
		if errors.Is(err, e.err) {
			return e.typ, fmt.Sprintf("[Errno %d] %s: %s", e.num, e.text, where)
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "FileNotFoundError", "[Errno 2] No such file or directory: " + where
	case errors.Is(err, fs.ErrPermission):
		return "PermissionError", "[Errno 13] Permission denied: " + where
	case errors.Is(err, fs.ErrExist):
		return "FileExistsError", "[Errno 17] File exists: " + where
	}
	return "OSError", fmt.Sprintf("%v: %s", err, where)
}

// statResult is os.stat_result for info.
func statResult(a *arena, info files.Info) uint32 {
	mode := int64(info.Perm) | 0o100000
	if info.Dir {
		mode = int64(info.Perm) | 0o040000
	}
	var ino, dev, nlink, uid, gid uint64 = info.Ino, 0, 1, 0, 0
	if info.Host != nil {
		if i, d, n, u, g, ok := proc.FileIDs(info.Host); ok {
			ino, dev, nlink, uid, gid = i, d, n, u, g
		}
	}
	if info.Dir && nlink == 1 {
		nlink = 2
	}
	mtime := float64(info.ModTime.UnixNano()) / 1e9
	names := []string{"st_mode", "st_ino", "st_dev", "st_nlink", "st_uid", "st_gid", "st_size", "st_atime", "st_mtime", "st_ctime"}
	vals := []uint32{a.int(mode), a.int(int64(ino)), a.int(int64(dev)), a.int(int64(nlink)), a.int(int64(uid)), a.int(int64(gid)),
		a.int(info.Size), a.float(mtime), a.float(mtime), a.float(mtime)}
	return a.add(&pb.MontyNode{Kind: &pb.MontyNode_NamedTuple{NamedTuple: &pb.NamedTupleNode{TypeName: "os.stat_result", FieldNames: names, Values: vals}}})
}

// utf8Error is the message of CPython's UnicodeDecodeError for the first
// undecodable bytes of data (as bytes.decode('utf-8') words it).
func utf8Error(data []byte) string {
	for i := 0; i < len(data); {
		c := data[i]
		if c < 0x80 {
			i++
			continue
		}
		n, lo, hi := 0, byte(0x80), byte(0xBF)
		switch {
		case c >= 0xC2 && c <= 0xDF:
			n = 1
		case c == 0xE0:
			n, lo = 2, 0xA0
		case c >= 0xE1 && c <= 0xEC, c == 0xEE, c == 0xEF:
			n = 2
		case c == 0xED:
			n, hi = 2, 0x9F
		case c == 0xF0:
			n, lo = 3, 0x90
		case c >= 0xF1 && c <= 0xF3:
			n = 3
		case c == 0xF4:
			n, hi = 3, 0x8F
		default:
			return fmt.Sprintf("'utf-8' codec can't decode byte 0x%02x in position %d: invalid start byte", c, i)
		}
		j := 1
		for ; j <= n; j++ {
			if i+j >= len(data) {
				return decodeMessage(data, i, i+j, "unexpected end of data")
			}
			b := data[i+j]
			l, u := byte(0x80), byte(0xBF)
			if j == 1 {
				l, u = lo, hi
			}
			if b < l || b > u {
				return decodeMessage(data, i, i+j, "invalid continuation byte")
			}
		}
		i += j
	}
	return "'utf-8' codec can't decode bytes"
}

func decodeMessage(data []byte, start, end int, reason string) string {
	if end-start == 1 {
		return fmt.Sprintf("'utf-8' codec can't decode byte 0x%02x in position %d: %s", data[start], start, reason)
	}
	return fmt.Sprintf("'utf-8' codec can't decode bytes in position %d-%d: %s", start, end-1, reason)
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
