; C++-only additions to facts.scm: range-for loops and the scopes that
; qualify method names (the classes among them, with their base clauses, are the file's classes).
(for_range_loop) @loop.range-for
(for_range_loop declarator: (_) @local)
(namespace_definition) @scope
(class_specifier body: (_)) @scope
(struct_specifier body: (_)) @scope
(union_specifier body: (_)) @scope
; A constructor's initialiser list: `fd_(::open(path, O_RDONLY))` sets the member.
(field_initializer) @member_init
; A lambda a variable or a field holds: a function of its own, called by the variable's name
; (or through the field: `b.on_event = [&](...) {...};` into a std::function member).
(init_declarator declarator: (identifier) value: (lambda_expression body: (_)) @lambda)
(assignment_expression left: [(identifier) (field_expression)] operator: "=" right: (lambda_expression body: (_)) @lambda)
(lambda_expression
  declarator: (abstract_function_declarator
    parameters: (parameter_list (parameter_declaration declarator: (_) @local))))
; `if (int fd = open(...))`: the condition's declaration holds its initialiser itself.
(condition_clause value: (declaration value: (_)) @init)
; Objects made with new: with the variables declared by value, the classes a file constructs.
(new_expression type: (_) @constructed)
; ... and by the standard library's factories, which call new themselves.
(call_expression
  function: [(template_function name: (identifier) @_factory
                                arguments: (template_argument_list (type_descriptor type: (_) @constructed)))
             (qualified_identifier name: (template_function name: (identifier) @_factory
                                arguments: (template_argument_list (type_descriptor type: (_) @constructed))))]
  (#match? @_factory "^(@FACTORIES@)$"))
; A standard algorithm: the function it is handed runs once per element (ts_sites.py); the
; names are frequency.py's, put in by ts_grammar.py.
(call_expression
  function: (_) @_algorithm.name
  (#match? @_algorithm.name "^(std::)?(ranges::)?(@ALGORITHMS@)$")
  arguments: (argument_list)) @algorithm
; `out << x << std::endl`: a flush of the stream the insertions start from.
(binary_expression
  operator: "<<"
  right: (_) @_manipulator.name
  (#match? @_manipulator.name "^(std::)?(@FLUSHING_MANIPULATORS@)$")) @manipulator
; Class and function templates, and the places a template is named with its arguments (an
; alias, an object made of it, a call): which classes a member or local of a template
; parameter's type may be.
(template_declaration parameters: (template_parameter_list) (class_specifier name: (_) body: (_))) @template
(template_declaration parameters: (template_parameter_list) (struct_specifier name: (_) body: (_))) @template
(template_declaration parameters: (template_parameter_list) (function_definition)) @template
(call_expression function: (template_function) @template.call)
(call_expression function: (qualified_identifier name: (template_function) @template.call))
(type_definition type: (template_type) declarator: (type_identifier)) @alias
(type_definition type: (qualified_identifier name: (template_type)) declarator: (type_identifier)) @alias
(type_definition type: (qualified_identifier name: (qualified_identifier name: (template_type))) declarator: (type_identifier)) @alias
(alias_declaration type: (type_descriptor type: (template_type))) @alias
(alias_declaration type: (type_descriptor type: (qualified_identifier name: (template_type)))) @alias
(alias_declaration type: (type_descriptor type: (qualified_identifier name: (qualified_identifier name: (template_type))))) @alias
; A concept: a template parameter it constrains (`template <Storage S>`) is a type's.
(concept_definition name: (identifier) @concept)
