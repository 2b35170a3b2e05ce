"""Declared types for the tree-sitter frontend, as far as one file says them: the struct or
class a variable (a parameter, a local, a file-scope variable) is declared with, and the type
of each field of the file's struct declarations.  Enough to tell which struct a call through a
field goes through (`ops->sync()` with `const struct log_ops *ops`), as clang does from its
types; where a name is not declared in the file (a macro, a header's global) the type is
unknown and calls are joined by name."""
from __future__ import annotations

from tree_sitter import Node

from ..frequency import SMART_POINTERS
from .ts_names import Nest, declared_name, function_declarator, scope_name, text

# The C++ library's own output streams, declared in headers the file does not hold.
STANDARD_STREAMS = {"std::cout": "ostream", "std::cerr": "ostream", "std::clog": "ostream"}
# Type nodes that name a struct, union, class or typedef, by the child holding the name.
_NAMED_TYPES = {"struct_specifier": "name", "union_specifier": "name", "class_specifier": "name",
                "enum_specifier": None, "type_identifier": "", "template_type": "name",
                "qualified_identifier": "name"}


def type_name(source: bytes, node: Node | None) -> str | None:
    """The struct, class or typedef name a type node spells (`struct log_ops` -> log_ops,
    `ns::Journal` -> Journal), None for a built-in type or an unnamed struct."""
    while node is not None:
        kind = node.type
        if kind not in _NAMED_TYPES or _NAMED_TYPES[kind] is None:
            return None
        if _NAMED_TYPES[kind] == "":
            return text(source, node)
        node = node.child_by_field_name(_NAMED_TYPES[kind])
        if node is not None and node.type in ("type_identifier", "identifier"):
            return text(source, node)
    return None


def qualified_type_name(source: bytes, node: Node | None) -> str | None:
    """The class a type node names, with the qualifiers it is written with (`kc::CacheDB::Cursor`,
    a template's arguments dropped), which tell a class nested in one class from its namesake
    nested in another; None as type_name."""
    scope = []
    if node is not None and node.type == "dependent_type":     # `typename PROTODB::Cursor`
        node = node.named_children[0] if node.named_children else None
    while node is not None and node.type == "qualified_identifier":
        if (part := node.child_by_field_name("scope")) is not None:
            scope.append(scope_name(source, part))
        node = node.child_by_field_name("name")
    name = type_name(source, node)
    return "::".join([*scope, name]) if name is not None else None


def template_arguments(source: bytes, node: Node | None) -> tuple[str, str, ...] | None:
    """(template, arguments...) of a node that names a class template with its arguments
    (`PlantDB<CacheDB, BasicDB::TYPEGRASS>` -> PlantDB, CacheDB, ""), or a function template
    (`procorder<kc::ProtoTreeDB>`): each argument's class or typedef name, "" for a value or a
    type that names none; None for anything else."""
    while node is not None and node.type == "qualified_identifier":
        node = node.child_by_field_name("name")
    if node is None or node.type not in ("template_type", "template_function") \
            or (arguments := node.child_by_field_name("arguments")) is None:
        return None
    named = [type_name(source, a.child_by_field_name("type")) if a.type == "type_descriptor" else None
             for a in arguments.named_children]
    return (text(source, node.child_by_field_name("name")), *(n or "" for n in named))


def designated_type(source: bytes, node: Node | None) -> str | None:
    """The class an object of this type designates for its members' calls: its own name, or,
    for a smart pointer (`std::unique_ptr<Store>`), what `->` reaches: the class it points to."""
    named = node.child_by_field_name("name") if node is not None and node.type == "qualified_identifier" else node
    if named is not None and named.type == "template_type" and type_name(source, named) in SMART_POINTERS:
        arguments = template_arguments(source, named)
        return arguments[1] or None if arguments is not None and len(arguments) > 1 else None
    return qualified_type_name(source, node)


def declaration_type(source: bytes, declarator: Node) -> str | None:
    """The type name of the declaration (or parameter, or field) a declarator belongs to."""
    owner = declarator.parent
    while owner is not None and owner.type in ("init_declarator", "pointer_declarator", "array_declarator",
                                               "reference_declarator", "attributed_declarator"):
        owner = owner.parent
    if owner is None:
        return None
    return designated_type(source, owner.child_by_field_name("type"))


def _object_type(source: bytes, declarator: Node) -> str | None:
    """The struct, class or typedef name a declarator's name is an object of: its
    declaration's type, when no pointer, array or function stands between them (a reference
    names the object)."""
    owner = declarator.parent
    while owner is not None and owner.type in ("init_declarator", "reference_declarator", "attributed_declarator"):
        owner = owner.parent
    if owner is None or owner.type in ("pointer_declarator", "array_declarator", "function_declarator"):
        return None
    return type_name(source, owner.child_by_field_name("type"))


def _method(declarator: Node) -> bool:
    """Whether a member's declarator declares a method (`void sync(int);`), not a field of a
    function pointer type (`int (*sync_)(int);`)."""
    inner = declarator.child_by_field_name("declarator") if declarator.type == "function_declarator" else None
    return inner is not None and inner.type in ("identifier", "field_identifier", "operator_name", "destructor_name")


def data_members(source: bytes, node: Node) -> tuple[dict[str, str], set[str]]:
    """A struct's or class's data members: those whose type is known, with it, and every
    one's name (a method is none; a function pointer or std::function member is one)."""
    body = node.child_by_field_name("body")
    members, names = {}, set()
    for member in body.named_children if body is not None else ():
        if member.type != "field_declaration":
            continue
        kind = designated_type(source, member.child_by_field_name("type"))
        for d in member.children_by_field_name("declarator"):
            field = declared_name(source, d, prototypes=True)
            if field and not _method(d):
                names.add(field)
            if field and kind:
                members[field] = kind
    return members, names


class DeclaredTypes:
    """The declared type of each name, per function and at file scope, and of each struct's fields."""

    def __init__(self, source: bytes, functions: list[Node], function_nest: Nest, qualified: list[tuple[str, str]],
                 declarators: list[Node], structs: list[Node], headers=None) -> None:
        self.source = source
        self.headers = headers      # ts_headers.Headers: the classes the file's headers declare
        self.nest = function_nest
        self.qualified = qualified
        self.in_function: list[dict[str, str]] = [{} for _ in functions]
        self.file: dict[str, str] = {}
        # the variables declared as objects of a struct or class, not pointers or arrays: what
        # `sizeof name` measures is their type (`sizeof h` is `sizeof(struct hdr)`)
        self.objects: list[dict[str, str]] = [{} for _ in functions]
        self.file_objects: dict[str, str] = {}
        for index, node in enumerate(functions):
            declarator = function_declarator(node)
            params = declarator.child_by_field_name("parameters") if declarator is not None else None
            for param in params.named_children if params is not None else ():
                inner = param.child_by_field_name("declarator")
                name = declared_name(source, inner) if inner is not None else None
                kind = designated_type(source, param.child_by_field_name("type"))
                if name and kind:
                    self.in_function[index][name] = kind
                if name and inner.type in ("identifier", "reference_declarator") \
                        and (named := type_name(source, param.child_by_field_name("type"))):
                    self.objects[index].setdefault(name, named)
        for declarator in declarators:
            name = declared_name(source, declarator)
            kind = declaration_type(source, declarator) if name else None
            if kind is None:
                continue
            index = function_nest.innermost(declarator.start_byte)
            (self.in_function[index] if index >= 0 else self.file).setdefault(name, kind)
            if (named := _object_type(source, declarator)) is not None:
                (self.objects[index] if index >= 0 else self.file_objects).setdefault(name, named)
        self.fields: dict[str, dict[str, str]] = {}
        self.field_names: dict[str, set[str]] = {}     # every field, its type known or not
        for node in structs:
            name = node.child_by_field_name("name")
            owners = [text(source, name)] if name is not None else []
            if node.parent is not None and node.parent.type == "type_definition":
                owners += [text(source, d) for d in node.parent.children_by_field_name("declarator")
                           if d.type == "type_identifier"]
            members, names = data_members(source, node)
            for owner in owners:
                self.fields.setdefault(owner, {}).update(members)
                self.field_names.setdefault(owner, set()).update(names)

    def object_type(self, name: str, pos: int) -> str | None:
        """The struct, class or typedef a variable in scope at a byte of the file is an object
        of (None for a pointer, an array, or a type not named)."""
        for index in reversed(self.nest.chain(pos)):
            if (found := self.objects[index].get(name)) is not None:
                return found
        return self.file_objects.get(name)

    def of_variable(self, name: str) -> str | None:
        """The struct a file-scope variable is declared with, by its bare name."""
        found = self.file.get(name)
        return found.rsplit("::", 1)[-1] if found is not None else None

    def owner_at(self, index: int) -> str | None:
        """The class the index-th function is a method of (its qualifier's last part), if any."""
        qualified = self.qualified[index][0] if index >= 0 else ""
        return qualified.split("::")[-2] if "::" in qualified else None

    def members(self, index: int) -> dict[str, str]:
        """In a method, the members of its class the file declares, with their types (`file_`
        of `class HashDB { File file_; }`)."""
        owner = self.owner_at(index)
        return self.fields.get(owner, {}) if owner is not None else {}

    def is_field(self, index: int, name: str) -> bool:
        """In a method, whether a name is a field of its class the file declares, or else a
        header it includes (a method's name is none), whatever its type: `sync_` of `int
        (*sync_)(int);`."""
        owner = self.owner_at(index)
        if owner is None:
            return False
        names = self.field_names.get(owner)
        if names is None and self.headers is not None:
            names = self.headers.data_members(owner)
        return name in (names or ())

    def of(self, node: Node | None, pos: int) -> str | None:
        """The struct or class an object expression has, at a byte of the file: a declared name,
        a field of an object whose struct the file declares, `this` in a method, `*p`, `(p)`, `p[i]`;
        by its bare name, as the file's structs are known (a member's struct, MEMBER.field_of)."""
        found = self.class_of(node, pos)
        return found.rsplit("::", 1)[-1] if found is not None and "." not in found else found

    def class_of(self, node: Node | None, pos: int) -> str | None:
        """As `of`, a declared name with the qualifiers it is written with (`kv::Index::Cursor cur`):
        the class a method called on it belongs to (Call.field_of), which tells nested classes
        of one name apart (Iteration.class_named)."""
        depth = 0
        while node is not None and node.type in ("parenthesized_expression", "pointer_expression") and depth < 8:
            node = node.named_children[-1] if node.named_child_count else None
            depth += 1
        if node is None:
            return None
        if node.type == "identifier":
            name = text(self.source, node)
            chain = self.nest.chain(pos)
            # a lambda sees the variables of the functions it is written in
            found = next((kind for index in reversed(chain) if (kind := self.in_function[index].get(name))), None)
            return found or self.file.get(name) or self.members(chain[-1] if chain else -1).get(name)
        if node.type == "qualified_identifier" and text(self.source, node) in STANDARD_STREAMS:
            return "ostream"
        if node.type == "this":
            return self.owner_at(self.nest.innermost(pos))
        if node.type == "subscript_expression":     # an element, of the array's (or pointer's) type
            return self.class_of(node.child_by_field_name("argument"), pos)
        if node.type == "field_expression":
            owner = self.of(node.child_by_field_name("argument"), pos)
            field = node.child_by_field_name("field")
            if owner is None or field is None:
                return None
            name = text(self.source, field)
            # a struct another file declares: its program ends the path (Program.struct_of)
            return self.fields.get(owner, {}).get(name) or f"{owner}.{name}"
        return None
