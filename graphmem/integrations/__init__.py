"""graphmem inside agent frameworks: each module an optional extra.

- :mod:`graphmem.integrations.langgraph`: a LangGraph ``BaseStore`` whose items are
  graphmem records, searched through :meth:`graphmem.Memory.retrieve`
  (``pip install 'graphmem[langgraph]'``).
- :mod:`graphmem.integrations.openai_agents`: an OpenAI Agents SDK ``Session`` whose
  history is a graphmem conversation, branches kept (``pip install 'graphmem[openai-agents]'``).

Nothing here is imported by ``import graphmem``; importing a module without its extra
raises an ``ImportError`` that names the extra to install.
"""
