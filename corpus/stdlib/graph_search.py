# %% A small road network
from collections import deque
import heapq

roads = {
    "A": {"B": 7, "C": 9, "F": 14},
    "B": {"A": 7, "C": 10, "D": 15},
    "C": {"A": 9, "B": 10, "D": 11, "F": 2},
    "D": {"B": 15, "C": 11, "E": 6},
    "E": {"D": 6, "F": 9},
    "F": {"A": 14, "C": 2, "E": 9},
}
sum(len(v) for v in roads.values()) // 2

# %% Breadth-first order
def bfs(start):
    seen, order, queue = {start}, [], deque([start])
    while queue:
        node = queue.popleft()
        order.append(node)
        for nxt in sorted(roads[node]):
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return order

bfs("A")

# %% Depth-first, recursive
def dfs(node, seen=None):
    seen = [] if seen is None else seen
    seen.append(node)
    for nxt in sorted(roads[node]):
        if nxt not in seen:
            dfs(nxt, seen)
    return seen

dfs("A")

# %% Dijkstra
def shortest(src):
    dist = {src: 0}
    prev = {}
    heap = [(0, src)]
    while heap:
        d, node = heapq.heappop(heap)
        if d > dist[node]:
            continue
        for nxt, w in roads[node].items():
            nd = d + w
            if nd < dist.get(nxt, float("inf")):
                dist[nxt], prev[nxt] = nd, node
                heapq.heappush(heap, (nd, nxt))
    return dist, prev

dist, prev = shortest("A")
dict(sorted(dist.items()))

# %% The path to E
def path(prev, target):
    out = [target]
    while out[-1] in prev:
        out.append(prev[out[-1]])
    return out[::-1]

" -> ".join(path(prev, "E"))

# %% Hop counts
def hops(start):
    level = {start: 0}
    q = deque([start])
    while q:
        n = q.popleft()
        for m in roads[n]:
            if m not in level:
                level[m] = level[n] + 1
                q.append(m)
    return dict(sorted(level.items()))

hops("E")

# %% Unknown node
shortest("Z")
