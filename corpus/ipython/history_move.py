# IPython's history names across a move: in auto mode the first cells run
# on Monty, a shell line moves the document to the container, and its
# history holds the cells before as IPython's does.

# %% a value
10

# %% no value
x = 5

# %% a function as the value
def f(a, b=1):
    return a + b
f

# %% a magic's cell
here = %pwd

# %% history names before the move
_1 + x, _i2, _i, _ii, len(In), In[4]

# %% a shell line moves the document
!echo moved

# %% inputs
_i2, _i3, _i, _ii, _iii, In[1], In[4], _i4

# %% outputs
sorted(Out), Out[1], _1, _3 is f, Out[5]

# %% the last three
_, __, ___

# %% the history as written
%history -n

# %% _ih and _oh
len(_ih), _ih[2], _oh is Out, _i11
