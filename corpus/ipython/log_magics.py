# %logstart, %logstate, %logoff, %logon and %logstop: the session's input
# written to a file in the notebook's folder.

# %% log state
%logstate

# %% log stop before start
%logstop

# %% log off before start
%logoff

# %% a cell before logging
before = 1

# %% log start
%logstart -q session_log.py

# %% logged cell
logged = 1
logged + 1

# %% log state active
%logstate

# %% log off
%logoff

# %% log off again
%logoff

# %% log state off
%logstate

# %% log on
%logon

# %% log stop
%logstop

# %% the log
print(open("session_log.py").read())

# %% log start with output
%logstart -o out_log.py over

# %% an output
40 + 2

# %% log stop again
%logstop
print(open("out_log.py").read())

# %% log raw input
%logstart -r -q raw_log.py append
%who_ls int

# %% the raw log
%logstop
print(open("raw_log.py").read())
