# %% A singly linked list with the sequence protocol
class Node:
    __slots__ = ("value", "next")
    def __init__(self, value, next=None):
        self.value, self.next = value, next

class LinkedList:
    def __init__(self, iterable=()):
        self.head = None
        self._len = 0
        for v in reversed(list(iterable)):
            self.push(v)

    def push(self, value):
        self.head = Node(value, self.head)
        self._len += 1

    def __iter__(self):
        node = self.head
        while node:
            yield node.value
            node = node.next

    def __len__(self):
        return self._len

    def __getitem__(self, i):
        if i < 0:
            i += len(self)
        for j, v in enumerate(self):
            if j == i:
                return v
        raise IndexError("LinkedList index out of range")

    def __contains__(self, value):
        return any(v == value for v in self)

    def __repr__(self):
        return "LinkedList([" + ", ".join(map(repr, self)) + "])"

    def __eq__(self, other):
        return isinstance(other, LinkedList) and list(self) == list(other)

    def reverse(self):
        prev, node = None, self.head
        while node:
            node.next, prev, node = prev, node, node.next
        self.head = prev
        return self

ll = LinkedList([1, 2, 3, 4])
ll

# %% len, index, membership
len(ll), ll[0], ll[-1], 3 in ll, 9 in ll

# %% Reverse in place
ll.reverse()

# %% Works with builtins
sum(ll), max(ll), sorted(ll), list(enumerate(ll))[:2]

# %% Out of range
ll[10]

# %% Equality
LinkedList("ab") == LinkedList(["a", "b"]), LinkedList() == []

# %% Push and print
ll.push(0)
print(*ll, sep=" -> ")
