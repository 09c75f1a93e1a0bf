# Object identity across a move: in auto mode the first cells run on
# Monty, a shell line moves the document to the container, and names and
# the output history that held one object hold one object still, as in
# IPython, where nothing moves.

# %% one list under two names
a = b = [1]
a

# %% a list and a dict that hold themselves
loop = [0]
loop.append(loop)
d = {'k': a}
d['me'] = d
loop, d

# %% a str as the value
s = 'a str, made once'
s

# %% a tuple that holds a list that holds it
t = ([],)
t[0].append(t)
t

# %% a shell line moves the document
!echo moved

# %% the output history holds the same objects
Out[1] is a, _1 is b, Out[2][0] is loop, _3 is s, Out[4] is t

# %% one list still
b.append(2)
a, a is b, d['k'] is a, Out[1]

# %% what holds itself still does
loop[1] is loop, d['me'] is d, t[0][0] is t, loop, d

# %% _, __ and ___
_ is Out[8], __[1], ___
