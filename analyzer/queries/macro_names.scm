; Names in a function-like macro body that may be parameter uses to substitute.
[(identifier) (field_identifier) (type_identifier)] @name
