# %psearch and name?-with-* search: names matching a wildcard pattern, in
# the interactive namespace and the builtins, sorted.

# %% a pattern with a ?
*int*?

# %% the ? first
?*int*

# %% names of the session and builtins
alpha = 1
abacus = [1, 2]
def apply_twice(f, x):
    return f(f(x))
%psearch a*

# %% without the builtins
%psearch -e builtin a*

# %% the user's names are searched twice over (local and global)
%psearch -e user_local a*

# %% a type
%psearch a* function

# %% builtin functions
%psearch a* builtinfunction

# %% a type no name has
%psearch a* module

# %% an unknown type matches nothing
%psearch a* nosuchtype

# %% case-sensitive by default
%psearch A*

# %% -i ignores case
%psearch -i AB*

# %% -c keeps it
%psearch -c Ab*

# %% ? is one character
%psearch ?lpha

# %% a single leading underscore is hidden
_hidden = 1
__dunder = 2
%psearch *hidden*

# %% -a shows it
%psearch -a *hidden*

# %% two underscores are not hidden
%psearch __dund*

# %% attributes: a dotted pattern
import collections
%psearch collections.*Dict*

# %% a pattern on each part
%psearch col*.Ord*

# %% attributes of a type
%psearch collections.* function

# %% nothing matches
%psearch zzz*

# %% the type names
%psearch -l

# %% no pattern
%psearch

# %% too many words
%psearch a b c

# %% a namespace there is not
%psearch -s alias a*

# %% an option there is not
%psearch -x a*
