"""Find, report and (on request) delete what `cdk destroy` leaves behind for this app.

Run it as ``python -m teardown`` (or ``make cleanup``) after ``cdk destroy``.
"""
