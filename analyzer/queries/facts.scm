; Constructs the tree-sitter frontend turns into facts, for C and C++.
; Capture names are the fact kinds analyzer/frontends/treesitter.py and ts_sites.py read.
; Definitions with a body (C++ `= delete` / `= default` ones have none).
(function_definition body: (_)) @function
(for_statement) @loop.for
(while_statement) @loop.while
(do_statement) @loop.do
(call_expression) @call
; A walk of the C library: the function it is handed runs once per element (ts_sites.py); the
; names are frequency.py's, put in by ts_grammar.py.
(call_expression
  function: (identifier) @_walk.name
  (#match? @_walk.name "^(@WALKS@)$")
  arguments: (argument_list)) @walk
(assignment_expression) @assign
(update_expression) @update
(init_declarator) @init
(return_statement) @return
(declaration declarator: (_) @local)
(comment) @comment
(preproc_function_def) @macro
(preproc_def name: (identifier) value: (preproc_arg)) @constant
(enumerator_list) @enumerators
; Preprocessor groups: those no Linux compiler sees are dropped, the others are guards
; (ts_preproc.py); #define/#undef tell which names a file switches off.
(preproc_if) @conditional
(preproc_ifdef) @conditional
(preproc_elif) @conditional
(preproc_elifdef) @conditional
(preproc_call) @directive
(preproc_def) @directive
; Code that runs only when a condition holds.
(if_statement consequence: (_)) @guard
(binary_expression operator: "&&" right: (_)) @conjunction
; Code that runs on some paths through its function only (FileFacts.branches).
(if_statement consequence: (_) @branch)
(if_statement alternative: (_) @branch)
(case_statement) @branch
(conditional_expression consequence: (_) @branch)
(conditional_expression alternative: (_) @branch)
(binary_expression operator: "&&" right: (_) @branch)
(binary_expression operator: "||" right: (_) @branch)
; The else of an if and of a `?:` (FileFacts.alternatives, with its then).
(if_statement alternative: (_) @alternative)
(conditional_expression alternative: (_) @alternative)
(initializer_pair) @binding
; Struct declarations: their fields name the positions of tables initialised without designators.
(struct_specifier body: (field_declaration_list)) @struct
; Typedefs: a name for a struct (or for a pointer to one) that declarations use instead.
(type_definition) @typedef
